import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pino } from "pino";
import { botIdentity, actionRedactor, runAction, withInputDefaults } from "../../src/action/run-action.js";
import { readActionEnv, type ActionEnv } from "../../src/config/action-env.js";
import { seedIssue, seedRepo } from "../../testkit/seed-repo.js";
import type { FakeRepo } from "../../testkit/fake-github-state.js";
import { startFakeGitHub, type FakeGitHub } from "../../testkit/start-fake-github.js";
import type { Repository } from "@octokit/webhooks-types";
import { examplePayload, exampleUser } from "../helpers/e2e-harness.js";
import { testExec } from "../helpers/test-exec.js";

const BOT = "github-actions[bot]";
const logger = pino({ level: "silent" });
const inputs = (more: Partial<ActionEnv["inputs"]> = {}): ActionEnv["inputs"] => ({
  openaiBaseUrl: "http://x",
  model: "m",
  configPath: ".github/aider.yml",
  githubToken: "t",
  botLogin: BOT,
  ...more,
});

describe("withInputDefaults", () => {
  it("fills what the repository's config leaves unset, and never overrides it", () => {
    expect(withInputDefaults(null, inputs({ editFormat: "whole", trigger: "bot", label: "ai" }))).toEqual({
      edit_format: "whole",
      trigger: { command: "bot", label: "ai" },
    });
    expect(
      withInputDefaults(
        { edit_format: "udiff", trigger: { command: "aider", min_permission: "admin" } },
        inputs({ editFormat: "whole", trigger: "bot", label: "ai" }),
      ),
    ).toEqual({
      edit_format: "udiff",
      trigger: { command: "aider", min_permission: "admin", label: "ai" },
    });
    expect(withInputDefaults({ lint: "ruff" }, inputs())).toEqual({ lint: "ruff" });
  });

  it("passes a config that is not a mapping on untouched, for the validator to report", () => {
    expect(withInputDefaults(["a"], inputs({ trigger: "bot" }))).toEqual(["a"]);
    expect(withInputDefaults({ trigger: "oops" }, inputs({ trigger: "bot" }))).toEqual({ trigger: "oops" });
  });
});

describe("botIdentity", () => {
  it("links commits to the bot's account: the Actions bot's fixed id, an App bot's id looked up by login", async () => {
    const calls: unknown[] = [];
    const api = async (username: string) => (calls.push(username), 4242);
    expect(await botIdentity(api, "github-actions[bot]", logger)).toEqual({
      login: "github-actions[bot]",
      email: "41898282+github-actions[bot]@users.noreply.github.com",
    });
    expect(calls).toEqual([]);
    expect(await botIdentity(api, "my-app[bot]", logger)).toEqual({
      login: "my-app[bot]",
      email: "4242+my-app[bot]@users.noreply.github.com",
    });
    expect(calls).toEqual(["my-app[bot]"]);
  });

  it("falls back to an address without the id when the lookup fails", async () => {
    const api = async () => Promise.reject(Object.assign(new Error("Not Found"), { status: 404 }));
    expect(await botIdentity(api, "my-app[bot]", logger)).toEqual({
      login: "my-app[bot]",
      email: "my-app[bot]@users.noreply.github.com",
    });
  });
});

describe("runAction (in process, against the fake GitHub)", () => {
  let fake: FakeGitHub;
  let repo: FakeRepo;
  let dir: string;
  beforeEach(async () => {
    fake = await startFakeGitHub({ botLogin: BOT, sourceEnv: process.env, exec: testExec({ sourceEnv: process.env }) });
    repo = await seedRepo(fake, {
      owner: "acme",
      name: "widgets",
      files: { "a.py": "x = 1\n" },
      permissions: { ann: "write", visitor: "read" },
    });
    dir = await mkdtemp(path.join(os.tmpdir(), "run-action-"));
  });
  afterEach(async () => {
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  });

  const env = (event: string, more: Record<string, string> = {}) =>
    readActionEnv({
      GITHUB_EVENT_NAME: event,
      GITHUB_EVENT_PATH: path.join(dir, "event.json"),
      GITHUB_REPOSITORY: "acme/widgets",
      GITHUB_API_URL: fake.apiUrl,
      GITHUB_SERVER_URL: fake.webUrl,
      GITHUB_WORKSPACE: dir,
      RUNNER_TEMP: dir,
      GITHUB_RUN_ID: "5",
      PATH: process.env.PATH,
      "INPUT_GITHUB-TOKEN": "ghs_t",
      "INPUT_OPENAI-BASE-URL": "http://127.0.0.1:9/v1",
      ...more,
    });
  const repository = (): Repository => ({
    ...examplePayload("issue_comment", "created").repository,
    id: 1,
    name: "widgets",
    full_name: "acme/widgets",
    owner: exampleUser("acme"),
    html_url: `${fake.webUrl}/acme/widgets`,
    clone_url: `${fake.webUrl}/acme/widgets.git`,
    default_branch: "main",
  });
  const run = (e: ActionEnv, payload: unknown) =>
    runAction(e, payload, { logger, redactor: actionRedactor(e), signal: new AbortController().signal });

  it("the `trigger` input names the command word when the config sets none", async () => {
    const issue = seedIssue(fake, repo, { title: "t", body: "b", user: "ann" });
    const p = examplePayload("issue_comment", "created");
    p.repository = repository();
    p.issue = { ...p.issue, number: issue.number, labels: [] };
    delete p.issue.pull_request;
    p.comment = {
      ...p.comment,
      body: "/bot help",
      user: exampleUser("ann", { type: "User" }),
      performed_via_github_app: null,
    };
    p.sender = exampleUser("ann", { id: 9, type: "User" });
    const result = await run(env("issue_comment", { INPUT_TRIGGER: "bot" }), p);
    expect(result).toMatchObject({ outcome: "replied", runs: [] });
    expect(repo.comments).toHaveLength(1);
    expect(repo.comments[0]!.body).toContain("/bot ask");
    // Without the input the same comment is no command at all.
    expect(await run(env("issue_comment"), p)).toMatchObject({ outcome: "ignored" });
  });

  it("workflow_dispatch on the default branch without a pull request is refused: the bot never pushes there", async () => {
    const p = {
      ref: "refs/heads/main",
      inputs: { message: "do it" },
      repository: repository(),
      sender: { login: "ann", id: 9, type: "User" },
    };
    const result = await run(env("workflow_dispatch"), p);
    expect(result.outcome).toBe("refused");
    expect(result.reason).toMatch(/never pushes to the default branch directly/);
    expect(repo.comments).toHaveLength(0);
  });

  it("workflow_dispatch passes the same permission gate as a comment", async () => {
    const p = {
      ref: "refs/heads/feature",
      repository: repository(),
      sender: { login: "visitor", id: 8, type: "User" },
    };
    const result = await run(env("workflow_dispatch", { INPUT_MESSAGE: "do it" }), p);
    expect(result.outcome).toBe("unauthorized");
    expect(result.reason).toMatch(/@visitor needs `write` permission/);
  });

  it("a schedule whose cron is in no config entry runs nothing and says why", async () => {
    const result = await run(env("schedule"), { schedule: "5 5 * * *", repository: repository() });
    expect(result).toMatchObject({ outcome: "ignored", runs: [] });
    expect(result.reason).toContain('no entry of `schedules` in the config has cron "5 5 * * *"');
  });

  it("an event file without what its kind must carry is a setup error naming the field, before any GitHub call", async () => {
    const { sender: _missing, ...p } = examplePayload("issue_comment", "created");
    await expect(run(env("issue_comment"), { ...p, repository: repository() })).rejects.toThrow(
      "The event payload at GITHUB_EVENT_PATH is not a GitHub event: issue_comment payload refused: sender.login should be a non-empty string, but is missing.",
    );
    expect(repo.comments).toHaveLength(0);
  });
});
