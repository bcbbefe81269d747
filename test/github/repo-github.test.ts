import type { components } from "@octokit/openapi-types";
import nock from "nock";
import { GitHubError, type GitHubFailureKind } from "../../src/github/github-error.js";
import { RepoGitHub } from "../../src/github/repo-github.js";
import { GITHUB_API, testOctokit, useStrictNock } from "../helpers/test-octokit.js";

const REPO = "/repos/acme/widgets";
const gateway = () => RepoGitHub.create({ octokit: testOctokit(), owner: "acme", repo: "widgets" });

/** A repository as `GET /repos/{owner}/{repo}` answers it, as far as the gateway reads it. */
const repository = {
  clone_url: "https://github.com/acme/widgets.git",
  default_branch: "trunk",
  full_name: "acme/widgets",
} satisfies Partial<components["schemas"]["full-repository"]>;

async function failure(call: Promise<unknown>): Promise<GitHubError> {
  const error: unknown = await call.then(
    () => new Error("expected a failure"),
    (e: unknown) => e,
  );
  if (!(error instanceof GitHubError)) throw new Error(`not a GitHubError: ${String(error)}`);
  return error;
}

describe("RepoGitHub: each GitHub answer is one GitHubError kind", () => {
  useStrictNock(nock);

  it.each([
    [404, { message: "Not Found" }, {}, "not-found"],
    [410, { message: "Issues are disabled for this repo" }, {}, "not-found"],
    [403, { message: "Resource not accessible by integration" }, {}, "forbidden"],
    [403, { message: "API rate limit exceeded" }, { "x-ratelimit-remaining": "0" }, "rate-limited"],
    [429, { message: "Too Many Requests" }, { "retry-after": "12" }, "rate-limited"],
    [422, { message: "Validation Failed", errors: [{ code: "invalid" }] }, {}, "validation"],
    [401, { message: "Bad credentials" }, {}, "unauthorized"],
    [502, { message: "Server Error" }, {}, "unavailable"],
    [409, { message: "Git Repository is empty." }, {}, "other"],
  ] as const)("HTTP %d %j %j → %s", async (status, body, headers, kind: GitHubFailureKind) => {
    nock(GITHUB_API).get(REPO).reply(status, body, headers);
    const error = await failure(gateway().getRepository());
    expect(error).toMatchObject({ kind, status });
    expect(error.message).toMatch(/^Reading repository acme\/widgets failed: /);
    expect(error.githubMessage).toContain(body.message);
  });

  it("a rate limit says how long to wait", async () => {
    nock(GITHUB_API).get(REPO).reply(429, { message: "slow down" }, { "retry-after": "12" });
    expect((await failure(gateway().getRepository())).retryAfterSeconds).toBe(12);
  });

  it.each([
    ["NOT_FOUND", "not-found", 404],
    ["FORBIDDEN", "forbidden", 403],
    ["RATE_LIMITED", "rate-limited", 403],
    ["UNAUTHORIZED", "unauthorized", 401],
    ["MAX_NODE_LIMIT_EXCEEDED", "validation", 422],
  ] as const)("GraphQL errors of type %s (HTTP 200) → %s", async (type, kind, status) => {
    nock(GITHUB_API)
      .post("/graphql")
      .reply(200, { data: null, errors: [{ type, message: `It says ${type}` }] });
    const error = await failure(gateway().listReviewThreads(4, 1));
    expect(error).toMatchObject({ kind, status, githubMessage: `It says ${type}` });
    expect(error.message).toMatch(/^Reading the review threads of acme\/widgets#4 failed: /);
  });
});

/** Every asynchronous method of the gateway, called with plausible arguments. */
const calls: Record<string, (gh: RepoGitHub) => Promise<unknown>> = {
  getRepository: (gh) => gh.getRepository(),
  getCommitSha: (gh) => gh.getCommitSha("main"),
  listBranchFiles: (gh) => gh.listBranchFiles("main"),
  readFile: (gh) => gh.readFile(".github/aider.yml"),
  reader: (gh) => gh.reader("main").read("package.json"),
  permissionOf: (gh) => gh.permissionOf("ann"),
  downloadAttachment: (gh) =>
    gh.downloadAttachment({ url: new URL(`${GITHUB_API}/files/1`), accept: "image/png", fetch: globalThis.fetch }),
  listComments: (gh) => gh.listComments(4),
  listIssueComments: (gh) => gh.listIssueComments(4, 1),
  findComment: (gh) => gh.findComment({ issueNumber: 4, marker: "<!-- m -->" }),
  createComment: (gh) => gh.createComment(4, "hi"),
  updateComment: (gh) => gh.updateComment(7, "hi"),
  ensureComment: (gh) => gh.ensureComment({ issueNumber: 4, marker: "<!-- m -->", body: "hi" }),
  ensureStatusComment: (gh) => gh.ensureStatusComment({ issueNumber: 4, jobId: "j", body: "queued" }),
  readCommentBody: (gh) => gh.readCommentBody("issue-comment", 7),
  addReaction: (gh) => gh.addReaction({ kind: "issue", number: 4 }, "eyes"),
  getIssueBody: (gh) => gh.getIssueBody(4),
  updateIssueBody: (gh) => gh.updateIssueBody(4, "b"),
  createIssue: (gh) => gh.createIssue("t", "b"),
  findIssueByMarker: (gh) => gh.findIssueByMarker({ creator: "bot", marker: "<!-- m -->", state: "open" }),
  getPullRequest: (gh) => gh.getPullRequest(4),
  getPullRequestHead: (gh) => gh.getPullRequestHead(4),
  findPullRequestForBranch: (gh) => gh.findPullRequestForBranch("aider/x"),
  listOpenPullRequestsForBranch: (gh) => gh.listOpenPullRequestsForBranch("aider/x"),
  ensurePullRequest: (gh) =>
    gh.ensurePullRequest({ head: "aider/x", base: "main", title: "t", body: "b", draft: false }),
  requestReview: (gh) => gh.requestReview(4, "ann"),
  listPullRequestFiles: (gh) => gh.listPullRequestFiles(4, 1),
  listClosingIssues: (gh) => gh.listClosingIssues(4),
  listReviewThreads: (gh) => gh.listReviewThreads(4, 1),
  resolveReviewThread: (gh) => gh.resolveReviewThread("T1"),
  replyToReviewComment: (gh) => gh.replyToReviewComment({ pullNumber: 4, commentId: 7, body: "b" }),
  ensureReviewReply: (gh) => gh.ensureReviewReply({ pullNumber: 4, commentId: 7, marker: "<!-- m -->", body: "b" }),
  startCheckRun: (gh) => gh.startCheckRun({ headSha: "a".repeat(40) }),
  completeCheckRun: (gh) => gh.completeCheckRun({ id: 3, conclusion: "success", title: "t", summary: "s" }),
  listCheckRunsForRef: (gh) => gh.listCheckRunsForRef("main", 1),
  listCheckRunAnnotations: (gh) => gh.listCheckRunAnnotations(3, 50),
  readJobLog: (gh) => gh.readJobLog(5),
  createCommitOnBranch: (gh) =>
    gh.createCommitOnBranch({
      branch: "aider/x",
      expectedHeadOid: "a".repeat(40),
      message: { headline: "h", body: "" },
      fileChanges: { additions: [], deletions: [] },
    }),
  createBranch: (gh) => gh.createBranch("aider/x", "a".repeat(40)),
};

describe("RepoGitHub: every method fails as a GitHubError", () => {
  // One outage answers whatever verb a method uses, so the strict "every mock called" rule does not apply here.
  beforeEach(() => nock.disableNetConnect());
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it("the table above calls every method the gateway has", () => {
    const bound = new Set(["owner", "repo", "fullName", "forRepository"]);
    expect(
      Object.keys(gateway())
        .filter((k) => !bound.has(k))
        .sort(),
    ).toEqual(Object.keys(calls).sort());
  });

  it.each(Object.keys(calls))("%s: GitHub down (503) → unavailable, naming the repository", async (name) => {
    const down = { message: "Service Unavailable" };
    nock(GITHUB_API)
      .persist()
      .get(() => true)
      .reply(503, down)
      .post(() => true)
      .reply(503, down)
      .patch(() => true)
      .reply(503, down);
    const error = await failure(calls[name]!(gateway()));
    expect(error.kind).toBe("unavailable");
    expect(error.status).toBe(503);
    // The attachment lives outside any repository; every other call says which one it was about.
    if (name !== "downloadAttachment" && name !== "resolveReviewThread") expect(error.message).toMatch(/acme\/widgets/);
  });
});

describe("RepoGitHub: answers that are not failures", () => {
  useStrictNock(nock);

  it("reads the repository bound once, as GitHub documents it", async () => {
    nock(GITHUB_API).get(REPO).reply(200, repository);
    const gh = gateway();
    expect(gh.fullName).toBe("acme/widgets");
    await expect(gh.getRepository()).resolves.toEqual({
      cloneUrl: "https://github.com/acme/widgets.git",
      defaultBranch: "trunk",
    });
  });

  it("a missing file, a stranger and a deleted comment are answers (404), not throws", async () => {
    nock(GITHUB_API)
      .get(`${REPO}/contents/.github%2Faider.yml`)
      .reply(404, { message: "Not Found" })
      .get(`${REPO}/collaborators/eve/permission`)
      .reply(404, { message: "Not Found" })
      .get(`${REPO}/issues/comments/7`)
      .reply(404, { message: "Not Found" });
    const gh = gateway();
    await expect(gh.readFile(".github/aider.yml")).resolves.toBeNull();
    await expect(gh.permissionOf("eve")).resolves.toBe("none");
    await expect(gh.readCommentBody("issue-comment", 7)).resolves.toBeNull();
  });

  it("a Check Run without the permission is null, but a rate limit on it still throws", async () => {
    nock(GITHUB_API)
      .post(`${REPO}/check-runs`)
      .reply(403, { message: "Resource not accessible by integration" })
      .post(`${REPO}/check-runs`)
      .reply(403, { message: "API rate limit exceeded" }, { "x-ratelimit-remaining": "0" });
    const gh = gateway();
    await expect(gh.startCheckRun({ headSha: "a".repeat(40) })).resolves.toBeNull();
    expect((await failure(gh.startCheckRun({ headSha: "a".repeat(40) }))).kind).toBe("rate-limited");
  });

  it("writes go to the bound repository's paths", async () => {
    const created = { id: 99 } satisfies Partial<components["schemas"]["issue-comment"]>;
    nock(GITHUB_API)
      .post(`${REPO}/issues/4/comments`, { body: "hello" })
      .reply(201, created)
      .post(`${REPO}/issues/comments/99/reactions`, { content: "rocket" })
      .reply(201, { id: 1, content: "rocket" });
    const gh = gateway();
    await expect(gh.createComment(4, "hello")).resolves.toBe(99);
    await gh.addReaction({ kind: "issue-comment", id: 99 }, "rocket");
  });

  it("forRepository binds the same client to a fork, where an API commit goes", async () => {
    type Body = { variables: { input: { branch: { repositoryNameWithOwner: string } } } };
    const oid = "b".repeat(40);
    nock(GITHUB_API)
      .post("/graphql", (b: Body) => b.variables.input.branch.repositoryNameWithOwner === "ann/widgets")
      .reply(200, { data: { createCommitOnBranch: { commit: { oid, url: "u", signature: { isValid: true } } } } });
    const fork = gateway().forRepository({ owner: "ann", repo: "widgets" });
    expect(fork.fullName).toBe("ann/widgets");
    await expect(
      fork.createCommitOnBranch({
        branch: "feature",
        expectedHeadOid: "a".repeat(40),
        message: { headline: "h", body: "" },
        fileChanges: { additions: [], deletions: [] },
      }),
    ).resolves.toEqual({ kind: "made", oid, verified: true });
  });
});
