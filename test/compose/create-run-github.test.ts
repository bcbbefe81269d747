import nock from "nock";
import { createRunGitHub } from "../../src/compose/create-run-github.js";
import { branchTarget, changedResult } from "../../testkit/builders/run-fixtures.js";
import { GITHUB_API, testOctokit, useStrictNock } from "../helpers/test-octokit.js";

const REPO = "/repos/acme/widgets";
const job = {
  req: { owner: "acme", repo: "widgets" },
  statusCommentId: 1,
  reactTo: { kind: "issue" as const, number: 4 },
  webUrl: "https://github.com/acme/widgets",
};
const result = changedResult({ editedFiles: [{ path: "a.ts", added: 1, removed: 0 }] });
const pr = {
  branch: "aider/issue-4",
  base: "main",
  draft: false,
  issue: { number: 4, title: "Add retries" },
  requester: { login: "ann" },
  result,
};

describe("createRunGitHub: openPullRequest", () => {
  useStrictNock(nock);

  it("keeps the pull request when asking the requester to review fails unexpectedly, and logs why", async () => {
    nock(GITHUB_API)
      .get(`${REPO}/pulls`)
      .query(true)
      .reply(200, [])
      .post(`${REPO}/pulls`)
      .reply(201, { number: 9, html_url: "https://github.com/acme/widgets/pull/9" })
      .post(`${REPO}/pulls/9/requested_reviewers`)
      .reply(502, { message: "Bad gateway" });
    const warned: object[] = [];
    const github = createRunGitHub(testOctokit(), job, async () => "t", { warn: (obj) => void warned.push(obj) });
    await expect(github.openPullRequest(pr)).resolves.toEqual({
      number: 9,
      url: "https://github.com/acme/widgets/pull/9",
    });
    expect(warned).toEqual([expect.objectContaining({ pull: 9 })]);
  });

  it("gives back the pull request a re-run already opened, with one lookup and no second review request", async () => {
    nock(GITHUB_API)
      .get(`${REPO}/pulls`)
      .query(true)
      .reply(200, [{ number: 9, html_url: "https://github.com/acme/widgets/pull/9" }]);
    const github = createRunGitHub(testOctokit(), job, async () => "t");
    await expect(github.openPullRequest(pr)).resolves.toEqual({
      number: 9,
      url: "https://github.com/acme/widgets/pull/9",
    });
  });
});

describe("createRunGitHub: API commits", () => {
  useStrictNock(nock);

  it("commits on the run's repository, or on a fork's branch when given one; whether GitHub verified it comes in the same answer", async () => {
    type Body = { query: string; variables: { input: { branch: { repositoryNameWithOwner: string } } } };
    const oid = "c".repeat(40);
    const made = (signature: unknown) => ({ data: { createCommitOnBranch: { commit: { oid, url: "u", signature } } } });
    const commitsApi = testOctokit();
    // No REST read of the commit follows (strict nock): its signature is asked for in the mutation itself.
    nock(GITHUB_API)
      .post(
        "/graphql",
        (b: Body) =>
          b.variables.input.branch.repositoryNameWithOwner === "acme/widgets" &&
          /signature\s*\{\s*isValid/.test(b.query),
      )
      .reply(200, made({ isValid: true }))
      .post("/graphql", (b: Body) => b.variables.input.branch.repositoryNameWithOwner === "ann/widgets")
      .reply(200, made({ isValid: false }))
      .post("/graphql")
      .reply(200, made(null));
    const github = createRunGitHub(testOctokit(), job, async () => "t", undefined, undefined, commitsApi);
    const req = {
      branch: "b",
      expectedHeadOid: "a".repeat(40),
      message: { headline: "h", body: "" },
      fileChanges: { additions: [], deletions: [] },
    };
    await expect(github.apiCommits!.create(req)).resolves.toEqual({ kind: "made", oid, verified: true });
    await expect(github.apiCommits!.create(req, { owner: "ann", repo: "widgets" })).resolves.toEqual({
      kind: "made",
      oid,
      verified: false,
    });
    // No signature at all: an unsigned commit, which GitHub's REST API reports as not verified.
    await expect(github.apiCommits!.create(req)).resolves.toEqual({ kind: "made", oid, verified: false });
  });

  it("a status comment GitHub no longer has reaches the run as a not-found GitHubError", async () => {
    nock(GITHUB_API).patch(`${REPO}/issues/comments/1`).reply(404, { message: "Not Found" });
    const github = createRunGitHub(testOctokit(), job, async () => "t");
    await expect(github.updateStatus("x")).rejects.toMatchObject({ name: "GitHubError", kind: "not-found" });
  });
});

describe("createRunGitHub: a run with no thread (a branch without a pull request)", () => {
  useStrictNock(nock);

  it("writes no status comment, reaction or plan state, and asks GitHub nothing for them", async () => {
    // Strict nock: any request to GitHub fails the test.
    const github = createRunGitHub(
      testOctokit(),
      { req: { owner: "acme", repo: "widgets", target: branchTarget() }, webUrl: job.webUrl },
      async () => "t",
      undefined,
      "aider-bot[bot]",
    );
    await github.updateStatus("🚀 Pushed");
    await github.react("rocket");
    await github.supersedeOlderPlans?.();
  });
});
