import nock from "nock";
import { listReviewThreads, resolveReviewThread } from "../../src/github/review-threads.js";
import { GITHUB_API as API, testOctokit, useStrictNock } from "../helpers/test-octokit.js";

const where = { owner: "acme", repo: "web" };
const thread = (id: string) => ({
  id,
  isResolved: false,
  isOutdated: false,
  path: "a.ts",
  line: 3,
  originalLine: 3,
  comments: { nodes: [{ databaseId: 70, body: "nit", diffHunk: "@@ -1 +1 @@", author: { login: "rev" } }] },
});
const page = (nodes: unknown[], endCursor: string | null) => ({
  data: {
    repository: {
      pullRequest: { reviewThreads: { pageInfo: { hasNextPage: endCursor !== null, endCursor }, nodes } },
    },
  },
});

describe("review threads over Octokit's GraphQL and nock", () => {
  useStrictNock(nock);

  it("follows endCursor across pages, up to maxPages", async () => {
    type Body = { query: string; variables: { after: string | null; number: number } };
    nock(API)
      .post("/graphql", (b: Body) => b.query.includes("reviewThreads") && b.variables.after === null)
      .reply(200, page([thread("T1")], "c1"))
      .post("/graphql", (b: Body) => b.variables.after === "c1")
      .reply(200, page([thread("T2")], "c2"));
    const threads = await listReviewThreads(testOctokit(), { ...where, pullNumber: 4, maxPages: 2 });
    expect(threads.map((t) => t.id)).toEqual(["T1", "T2"]);
    expect(threads[0]).toEqual(thread("T1"));
  });

  it("is empty when the pull request does not exist (GitHub answers null)", async () => {
    nock(API)
      .post("/graphql")
      .reply(200, { data: { repository: { pullRequest: null } } });
    expect(await listReviewThreads(testOctokit(), { ...where, pullNumber: 4, maxPages: 5 })).toEqual([]);
  });

  it("maps a refused GraphQL request to a GitHubError naming the pull request", async () => {
    nock(API).post("/graphql").reply(401, { message: "Bad credentials" });
    await expect(listReviewThreads(testOctokit(), { ...where, pullNumber: 4, maxPages: 5 })).rejects.toMatchObject({
      name: "GitHubError",
      kind: "unauthorized",
      message: expect.stringContaining("Reading the review threads of acme/web#4 failed"),
    });
  });

  it("resolves a thread, and maps a missing permission to a GitHubError", async () => {
    nock(API)
      .post(
        "/graphql",
        (b: { query: string; variables: { threadId: string } }) =>
          b.query.includes("resolveReviewThread") && b.variables.threadId === "T1",
      )
      .reply(200, { data: { resolveReviewThread: { thread: { isResolved: true } } } })
      .post("/graphql")
      .reply(403, { message: "Resource not accessible by integration" });
    const api = testOctokit();
    expect(await resolveReviewThread(api, "T1")).toBe(true);
    await expect(resolveReviewThread(api, "T2")).rejects.toMatchObject({
      name: "GitHubError",
      kind: "forbidden",
      message: expect.stringContaining("Resolving review thread T2 failed"),
    });
  });
});
