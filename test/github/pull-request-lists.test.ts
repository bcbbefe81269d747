import nock from "nock";
import { listIssueComments } from "../../src/github/issues.js";
import { listClosingIssues, listPullRequestFiles } from "../../src/github/pull-request.js";
import { listBranchFiles } from "../../src/github/repositories.js";
import { GITHUB_API as API, testOctokit, useStrictNock } from "../helpers/test-octokit.js";

const R = "/repos/acme/web";
const where = { owner: "acme", repo: "web" };
const file = (filename: string) => ({
  sha: "s",
  filename,
  status: "modified",
  additions: 1,
  deletions: 0,
  changes: 1,
  blob_url: "",
  raw_url: "",
  contents_url: "",
  patch: "+x",
});

describe("pull request and repository reads over Octokit and nock", () => {
  useStrictNock(nock);

  it("lists a PR's files across pages, and says when maxPages cut the list", async () => {
    nock(API)
      .get(`${R}/pulls/4/files`)
      .query({ per_page: "100" })
      .reply(200, [file("a.ts")], { link: `<${API}${R}/pulls/4/files?per_page=100&page=2>; rel="next"` })
      .get(`${R}/pulls/4/files`)
      .query({ per_page: "100", page: "2" })
      .reply(200, [file("b.ts")], { link: `<${API}${R}/pulls/4/files?per_page=100&page=3>; rel="next"` });
    const { items, truncated } = await listPullRequestFiles(testOctokit(), { ...where, pullNumber: 4, maxPages: 2 });
    expect(items.map((f) => f.filename)).toEqual(["a.ts", "b.ts"]);
    expect(truncated).toBe(true);
  });

  it("maps a missing PR's files to a not-found GitHubError", async () => {
    nock(API).get(`${R}/pulls/4/files`).query(true).reply(404, { message: "Not Found" });
    await expect(listPullRequestFiles(testOctokit(), { ...where, pullNumber: 4, maxPages: 10 })).rejects.toMatchObject({
      name: "GitHubError",
      kind: "not-found",
      message: expect.stringContaining("Listing the files of acme/web#4"),
    });
  });

  it("lists an issue's comments, and maps a rate limit to a GitHubError with the wait", async () => {
    const comment = { id: 1, body: "hi", user: { login: "alice", type: "User" }, created_at: "2026-01-01T00:00:00Z" };
    nock(API)
      .get(`${R}/issues/4/comments`)
      .query({ per_page: "100" })
      .reply(200, [comment])
      .get(`${R}/issues/5/comments`)
      .query(true)
      .reply(429, { message: "API rate limit exceeded" }, { "retry-after": "30" });
    const api = testOctokit();
    expect(await listIssueComments(api, { ...where, number: 4, maxPages: 10 })).toEqual({
      items: [comment],
      truncated: false,
    });
    await expect(listIssueComments(api, { ...where, number: 5, maxPages: 10 })).rejects.toMatchObject({
      name: "GitHubError",
      kind: "rate-limited",
      retryAfterSeconds: 30,
      message: expect.stringContaining("Listing the comments of acme/web#5 failed"),
    });
  });

  it("reads the issues a PR closes over GraphQL, and maps a server error", async () => {
    nock(API)
      .post(
        "/graphql",
        (b: { query: string; variables: { number: number } }) =>
          b.query.includes("closingIssuesReferences") && b.variables.number === 4,
      )
      .reply(200, {
        data: {
          repository: {
            pullRequest: { closingIssuesReferences: { nodes: [{ number: 12, title: "Crash", body: null }] } },
          },
        },
      })
      .post("/graphql")
      .reply(502, { message: "Server Error" });
    const api = testOctokit();
    expect(await listClosingIssues(api, { ...where, pullNumber: 4 })).toEqual([
      { number: 12, title: "Crash", body: null },
    ]);
    await expect(listClosingIssues(api, { ...where, pullNumber: 5 })).rejects.toMatchObject({
      name: "GitHubError",
      kind: "unavailable",
      message: expect.stringContaining("Reading the issues acme/web#5 closes failed"),
    });
  });

  it("lists a branch's files (blobs only) from the git tree, with GitHub's truncated flag", async () => {
    const entry = (path: string, type: string, size?: number) => ({
      path,
      mode: type === "tree" ? "040000" : "100644",
      type,
      sha: "s",
      ...(size !== undefined ? { size } : {}),
      url: "",
    });
    nock(API)
      .get(`${R}/git/trees/main`)
      .query({ recursive: "1" })
      .reply(200, {
        sha: "t",
        url: "",
        truncated: true,
        tree: [entry("docs", "tree"), entry("docs/AGENTS.md", "blob", 12), entry("lib", "commit")],
      });
    expect(await listBranchFiles(testOctokit(), { ...where, branch: "main" })).toEqual({
      files: [{ path: "docs/AGENTS.md", size: 12 }],
      truncated: true,
    });
  });

  it("maps a missing branch's tree to a not-found GitHubError", async () => {
    nock(API).get(`${R}/git/trees/gone`).query(true).reply(404, { message: "Not Found" });
    await expect(listBranchFiles(testOctokit(), { ...where, branch: "gone" })).rejects.toMatchObject({
      name: "GitHubError",
      kind: "not-found",
      message: expect.stringContaining("Listing the files of acme/web branch gone failed"),
    });
  });
});
