import { createRequire } from "node:module";
import { parseActionEvent } from "../../src/edge/parse-action-event.js";
import { parseWebhook } from "../../src/edge/parse-webhook.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- GitHub's example payloads, mutated as loose JSON */
const examples = createRequire(import.meta.url)("@octokit/webhooks-examples") as {
  name: string;
  examples: Record<string, any>[];
}[];

/** A copy of GitHub's first example of `name.action` (any action for push), with the installation the App gets. */
function example(name: string, action?: string): Record<string, any> {
  const found = examples
    .find((e) => e.name === name)!
    .examples.find((x) => action === undefined || x.action === action);
  const p = structuredClone(found!);
  p.installation = { id: 7 };
  return p;
}

const withChanges = (p: Record<string, any>) => ((p.changes = { body: { from: "before" } }), p);

describe("parseWebhook: GitHub's example payloads", () => {
  it.each([
    ["issue_comment", "created", "comment"],
    ["issue_comment", "edited", "comment-edit"],
    ["pull_request_review_comment", "created", "review-comment"],
    ["issues", "opened", "issue-label"],
    ["issues", "labeled", "issue-label"],
    ["issues", "edited", "issue-edit"],
    ["check_suite", "completed", "check-suite"],
  ])("%s.%s → %s", (name, action, kind) => {
    const parsed = parseWebhook(name, withChanges(example(name, action)), "d1");
    expect(parsed.ok && parsed.event.kind).toBe(kind);
  });

  it("reads a comment's facts, typed", () => {
    const parsed = parseWebhook("issue_comment", example("issue_comment", "created"), "d1");
    if (!parsed.ok || parsed.event.kind !== "comment") throw new Error(JSON.stringify(parsed));
    expect(parsed.event).toMatchObject({
      delivery: "d1",
      installationId: 7,
      repository: {
        owner: "Codertocat",
        name: "Hello-World",
        fullName: "Codertocat/Hello-World",
        defaultBranch: "master",
      },
      sender: { login: "Codertocat", type: "User" },
      thread: { number: 1, isPullRequest: false },
      comment: { id: 492700400, author: "Codertocat" },
    });
  });

  it("a check suite names only the pull requests of its own repository whose head is its commit", () => {
    const p = example("check_suite", "completed");
    const parsed = parseWebhook("check_suite", p, "d1");
    expect(parsed.ok && parsed.event.kind === "check-suite" && parsed.event.suite).toEqual({
      conclusion: "success",
      headSha: "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
      appId: 29310,
      pullNumbers: [2],
    });
    p.check_suite.pull_requests[0].base.repo.id = 42;
    const other = parseWebhook("check_suite", p, "d1");
    expect(other.ok && other.event.kind === "check-suite" && other.event.suite.pullNumbers).toEqual([]);
  });

  it("a push names its ref and repository", () => {
    const parsed = parseWebhook("push", example("push"), "d1");
    expect(parsed.ok && parsed.event.kind === "push" && parsed.event.ref).toBe("refs/tags/simple-tag");
  });
});

describe("parseWebhook refuses a malformed payload, naming what is wrong", () => {
  const mutate = (name: string, action: string, change: (p: Record<string, any>) => void) => {
    const p = withChanges(example(name, action));
    change(p);
    return parseWebhook(name, p, "d1");
  };
  it.each([
    [
      "no installation",
      "issue_comment",
      "created",
      (p: any) => delete p.installation,
      "installation.id should be an integer, but is missing",
    ],
    [
      "installation id as text",
      "issue_comment",
      "created",
      (p: any) => (p.installation.id = "7"),
      "installation.id should be an integer, but is string",
    ],
    [
      "no repository",
      "issue_comment",
      "created",
      (p: any) => delete p.repository,
      "repository.id should be an integer, but is missing",
    ],
    [
      "no owner",
      "issue_comment",
      "created",
      (p: any) => delete p.repository.owner,
      "repository.owner.login should be a non-empty string, but is missing",
    ],
    [
      "no default branch",
      "issues",
      "labeled",
      (p: any) => delete p.repository.default_branch,
      "repository.default_branch should be a non-empty string, but is missing",
    ],
    [
      "no clone url",
      "issue_comment",
      "created",
      (p: any) => (p.repository.clone_url = null),
      "repository.clone_url should be a non-empty string, but is null",
    ],
    [
      "no sender",
      "issue_comment",
      "created",
      (p: any) => delete p.sender,
      "sender.login should be a non-empty string, but is missing",
    ],
    [
      "sender without a type",
      "issue_comment",
      "created",
      (p: any) => delete p.sender.type,
      "sender.type should be a non-empty string, but is missing",
    ],
    [
      "comment body not text",
      "issue_comment",
      "created",
      (p: any) => (p.comment.body = 5),
      "comment.body should be a string, but is number",
    ],
    [
      "comment without an id",
      "issue_comment",
      "created",
      (p: any) => delete p.comment.id,
      "comment.id should be an integer, but is missing",
    ],
    [
      "issue without a number",
      "issue_comment",
      "created",
      (p: any) => delete p.issue.number,
      "issue.number should be an integer, but is missing",
    ],
    [
      "labels not a list",
      "issues",
      "opened",
      (p: any) => (p.issue.labels = "bug"),
      "issue.labels should be a list, but is string",
    ],
    [
      "a label without a name",
      "issues",
      "opened",
      (p: any) => (p.issue.labels = [{}]),
      "issue.labels[0].name should be a string, but is missing",
    ],
    [
      "labeled without its label",
      "issues",
      "labeled",
      (p: any) => delete p.label,
      "label.name should be a string, but is missing",
    ],
    [
      "an edit whose old body is not text",
      "issue_comment",
      "edited",
      (p: any) => (p.changes.body.from = null),
      "changes.body.from should be a string, but is null",
    ],
    [
      "a review comment without its path",
      "pull_request_review_comment",
      "created",
      (p: any) => delete p.comment.path,
      "comment.path should be a non-empty string, but is missing",
    ],
    [
      "a review comment without its pull request",
      "pull_request_review_comment",
      "created",
      (p: any) => delete p.pull_request,
      "pull_request.number should be an integer, but is missing",
    ],
    [
      "a suite without its commit",
      "check_suite",
      "completed",
      (p: any) => delete p.check_suite.head_sha,
      "check_suite.head_sha should be a non-empty string, but is missing",
    ],
    [
      "a suite without its App",
      "check_suite",
      "completed",
      (p: any) => delete p.check_suite.app,
      "check_suite.app.id should be an integer, but is missing",
    ],
    [
      "a suite's PR without its base",
      "check_suite",
      "completed",
      (p: any) => delete p.check_suite.pull_requests[0].base,
      "check_suite.pull_requests[0].base.repo.id should be an integer, but is missing",
    ],
    ["no action", "issue_comment", "created", (p: any) => delete p.action, "action should be a string, but is missing"],
  ])("%s", (_n, name, action, change, reason) => {
    const parsed = mutate(name, action, change);
    expect(parsed).toEqual({ ok: false, refused: true, reason: `${name} payload refused: ${reason}` });
  });

  it("a payload that is not an object", () => {
    for (const payload of [null, "x", [1]])
      expect(parseWebhook("issues", payload, "d1")).toEqual({
        ok: false,
        refused: true,
        reason: "issues payload refused: the payload is not a JSON object",
      });
  });

  it("a push without its ref", () => {
    const p = example("push");
    delete p.ref;
    expect(parseWebhook("push", p, "d1")).toMatchObject({
      refused: true,
      reason: expect.stringContaining("ref should be"),
    });
  });
});

describe("parseWebhook leaves what the bot does not handle, without refusing it", () => {
  it.each([
    ["an event it never handles", "ping", {}],
    ["a comment deleted", "issue_comment", { ...example("issue_comment", "created"), action: "deleted" }],
    ["an issue closed", "issues", { ...example("issues", "opened"), action: "closed" }],
    ["an edit that left the body as it was", "issue_comment", { ...example("issue_comment", "edited"), changes: {} }],
  ])("%s", (_n, name, payload) => {
    const parsed = parseWebhook(name, payload, "d1");
    expect(parsed).toMatchObject({ ok: false, refused: false });
  });
});

describe("parseActionEvent", () => {
  it("a webhook event from the event file has no installation", () => {
    const p = example("issue_comment", "created");
    delete p.installation;
    const parsed = parseActionEvent("issue_comment", p, "run-1");
    expect(parsed.ok && parsed.event.kind === "comment" && parsed.event.installationId).toBe(0);
  });

  it("schedule and workflow_dispatch, with and without their repository", () => {
    expect(parseActionEvent("schedule", { schedule: "5 5 * * *" }, "r")).toEqual({
      ok: true,
      event: { kind: "schedule", delivery: "r", cron: "5 5 * * *" },
    });
    const dispatch = {
      ref: "refs/heads/x",
      inputs: { message: " do it " },
      sender: { login: "ann", id: 9, type: "User" },
      repository: { clone_url: "https://g/a/b.git", default_branch: "main" },
    };
    expect(parseActionEvent("workflow_dispatch", dispatch, "r")).toEqual({
      ok: true,
      event: {
        kind: "dispatch",
        delivery: "r",
        ref: "refs/heads/x",
        message: "do it",
        sender: { login: "ann", id: 9, type: "User" },
        repository: { cloneUrl: "https://g/a/b.git", defaultBranch: "main" },
      },
    });
  });

  it.each([
    ["schedule", {}, "schedule should be a non-empty string, but is missing"],
    [
      "schedule",
      { schedule: "1 * * * *", repository: { clone_url: "x" } },
      "repository.default_branch should be a non-empty string, but is missing",
    ],
    [
      "workflow_dispatch",
      { ref: 42, sender: { login: "a", id: 1, type: "User" } },
      "ref should be a non-empty string, but is number",
    ],
    ["workflow_dispatch", { ref: "refs/heads/x" }, "sender.login should be a non-empty string, but is missing"],
  ])("%s refused: %j", (name, payload, reason) => {
    expect(parseActionEvent(name, payload, "r")).toEqual({
      ok: false,
      refused: true,
      reason: `${name} payload refused: ${reason}`,
    });
  });
});
