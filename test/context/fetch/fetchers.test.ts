import nock from "nock";
import { testOctokit } from "../../helpers/test-octokit.js";
import { fetchClosingIssues } from "../../../src/context/fetch/fetch-closing-issues.js";
import { fetchFailingChecks } from "../../../src/context/fetch/fetch-failing-checks.js";
import { fetchIssueComments, priorRunsFrom } from "../../../src/context/fetch/fetch-issue-comments.js";
import { fetchJobLog } from "../../../src/context/fetch/fetch-job-log.js";
import { fetchPrFiles } from "../../../src/context/fetch/fetch-pr-files.js";
import type { GitHubClient } from "../../../src/github/github-client.js";
import { RepoGitHub } from "../../../src/github/repo-github.js";
import { fetchReviewThreads, replyInThread } from "../../../src/context/fetch/review-threads.js";
import { resolveReviewThread } from "../../../src/github/review-threads.js";
import { requestMarker, runMarker } from "../../../src/github/markers.js";

const API = "https://api.github.com";
const R = "/repos/acme/web";
const where = { owner: "acme", repo: "web" };

describe("context fetchers over a real Octokit and nock", () => {
  let api: GitHubClient;
  let github: RepoGitHub;
  beforeEach(() => {
    nock.disableNetConnect();
    api = testOctokit();
    github = RepoGitHub.create({ octokit: api, ...where });
  });
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    nock.enableNetConnect();
    expect(pending).toEqual([]);
  });

  it("PR files: follows the next-page link, keeps patches and renames", async () => {
    const page1 = Array.from({ length: 100 }, (_, i) => ({
      filename: `f${i}.ts`,
      status: "modified",
      additions: 1,
      deletions: 0,
      changes: 1,
      patch: "+x",
      sha: "s",
      blob_url: "",
      raw_url: "",
      contents_url: "",
    }));
    // GitHub leads to the next page with a `link` header.
    nock(API)
      .get(`${R}/pulls/4/files`)
      .query({ per_page: 100 })
      .reply(200, page1, { link: `<${API}${R}/pulls/4/files?per_page=100&page=2>; rel="next"` });
    nock(API)
      .get(`${R}/pulls/4/files`)
      .query({ per_page: 100, page: 2 })
      .reply(200, [
        {
          filename: "b.png",
          status: "renamed",
          previous_filename: "a.png",
          additions: 0,
          deletions: 0,
          changes: 0,
          sha: "s",
          blob_url: "",
          raw_url: "",
          contents_url: "",
        },
      ]);
    const { files, truncated } = await fetchPrFiles(github, 4);
    expect(truncated).toBe(false);
    expect(files).toHaveLength(101);
    expect(files[100]).toEqual({ path: "b.png", status: "renamed", additions: 0, deletions: 0, previousPath: "a.png" });
  });

  it("issue comments and the bot's earlier runs (only the bot's own comments count)", async () => {
    const status = `${runMarker("j1")}\n${requestMarker({ verb: "run", text: "add retries", files: [] })}\n\n🚀 Pushed [\`abc1234\`](u) to this pull request.`;
    nock(API)
      .get(`${R}/issues/4/comments`)
      .query({ per_page: 100 })
      .reply(200, [
        { id: 1, body: "please fix", user: { login: "alice", type: "User" }, created_at: "2026-01-01T00:00:00Z" },
        { id: 2, body: status, user: { login: "aider-bot[bot]", type: "Bot" }, created_at: "2026-01-02T00:00:00Z" },
        {
          id: 3,
          body: status.replace("j1", "forged"),
          user: { login: "mallory", type: "User" },
          created_at: "2026-01-03T00:00:00Z",
        },
      ]);
    const { comments } = await fetchIssueComments(github, 4);
    expect(comments.map((c) => [c.id, c.author, c.isBot])).toEqual([
      [1, "alice", false],
      [2, "aider-bot[bot]", true],
      [3, "mallory", false],
    ]);
    const runs = priorRunsFrom(comments, "aider-bot[bot]");
    expect(runs.map((r) => [r.jobId, r.request, r.outcome, r.commit])).toEqual([
      ["j1", "add retries", "pushed", "abc1234"],
    ]);
  });

  it("review threads over GraphQL with paging, resolve, and a reply in the thread", async () => {
    const node = (id: string) => ({
      id,
      isResolved: false,
      isOutdated: id === "T2",
      path: "a.ts",
      line: null,
      originalLine: 7,
      comments: { nodes: [{ databaseId: 70, body: "nit", diffHunk: "@@ -1 +1 @@", author: { login: "rev" } }] },
    });
    nock(API)
      .post(
        "/graphql",
        (b: { query: string; variables: { after: string | null; number: number } }) =>
          b.query.includes("reviewThreads") && b.variables.after === null && b.variables.number === 4,
      )
      .reply(200, {
        data: {
          repository: {
            pullRequest: { reviewThreads: { pageInfo: { hasNextPage: true, endCursor: "c1" }, nodes: [node("T1")] } },
          },
        },
      });
    nock(API)
      .post("/graphql", (b: { variables: { after: string | null } }) => b.variables.after === "c1")
      .reply(200, {
        data: {
          repository: {
            pullRequest: { reviewThreads: { pageInfo: { hasNextPage: false, endCursor: null }, nodes: [node("T2")] } },
          },
        },
      });
    const threads = await fetchReviewThreads(github, 4);
    expect(threads).toEqual([
      {
        id: "T1",
        path: "a.ts",
        line: 7,
        isResolved: false,
        isOutdated: false,
        comments: [{ databaseId: 70, author: "rev", body: "nit", diffHunk: "@@ -1 +1 @@" }],
      },
      expect.objectContaining({ id: "T2", isOutdated: true }),
    ]);
    nock(API)
      .post(
        "/graphql",
        (b: { query: string; variables: { threadId: string } }) =>
          b.query.includes("resolveReviewThread") && b.variables.threadId === "T1",
      )
      .reply(200, { data: { resolveReviewThread: { thread: { isResolved: true } } } });
    expect(await resolveReviewThread(api, "T1")).toBe(true);
    nock(API).post(`${R}/pulls/4/comments/70/replies`, { body: "done" }).reply(201, { id: 99 });
    expect(await replyInThread(github, 4, threads[0]!, "done")).toBe(99);
  });

  it("closing issues over GraphQL", async () => {
    nock(API)
      .post("/graphql", (b: { query: string }) => b.query.includes("closingIssuesReferences"))
      .reply(200, {
        data: {
          repository: {
            pullRequest: { closingIssuesReferences: { nodes: [{ number: 12, title: "Crash", body: null }] } },
          },
        },
      });
    expect(await fetchClosingIssues(github, 4)).toEqual([{ number: 12, title: "Crash", body: "" }]);
  });

  it("failing checks with annotations and the Actions job id; passing runs and the bot's own run are skipped", async () => {
    const run = (id: number, name: string, conclusion: string, slug: string, annotations = 0) => ({
      id,
      name,
      conclusion,
      status: "completed",
      head_sha: "abc",
      app: { slug },
      details_url: `https://github.com/acme/web/actions/runs/1/job/${id}`,
      output: { title: `${name} title`, summary: "sum", text: null, annotations_count: annotations },
    });
    nock(API)
      .get(`${R}/commits/abc/check-runs`)
      .query({ filter: "latest", per_page: 100 })
      .reply(200, {
        total_count: 3,
        check_runs: [
          run(1, "test", "failure", "github-actions", 1),
          run(2, "lint", "success", "github-actions"),
          run(3, "aider-bot", "failure", "aider-bot"),
          run(4, "ext", "timed_out", "circleci"),
        ],
      });
    nock(API)
      .get(`${R}/check-runs/1/annotations`)
      .query({ per_page: 50 })
      .reply(200, [
        { path: "a.ts", start_line: 3, end_line: 3, annotation_level: "failure", message: "boom", title: "T" },
      ]);
    const checks = await fetchFailingChecks(github, "abc", "aider-bot");
    expect(checks.map((c) => [c.name, c.jobId, c.annotations.length])).toEqual([
      ["test", 1, 1],
      ["ext", undefined, 0],
    ]);
    expect(checks[0]!.annotations[0]).toEqual({
      path: "a.ts",
      startLine: 3,
      endLine: 3,
      level: "failure",
      message: "boom",
      title: "T",
    });
  });

  it("job log: follows the redirect and keeps the tail without timestamps", async () => {
    nock(API).get(`${R}/actions/jobs/5/logs`).reply(302, "", { Location: "https://pipelines.example.net/log/5?sig=x" });
    const log =
      Array.from({ length: 200 }, (_, i) => `2026-01-01T00:00:00.0000000Z line ${i}`).join("\n") +
      "\n2026-01-01T00:00:01.0000000Z \u001b[31mError: boom\u001b[0m\n";
    nock("https://pipelines.example.net")
      .get("/log/5")
      .query({ sig: "x" })
      .reply(200, log, { "Content-Type": "text/plain" });
    const r = await fetchJobLog(github, 5, 3);
    expect(r).toEqual({ ok: true, value: "line 198\nline 199\nError: boom" });
  });

  it.each([403, 404])("job log: HTTP %i degrades with a note naming the permission", async (status) => {
    nock(API).get(`${R}/actions/jobs/5/logs`).reply(status, { message: "Resource not accessible by integration" });
    const r = await fetchJobLog(github, 5);
    expect(r).toEqual({ ok: false, reason: "no-permission", message: expect.stringContaining("`actions: read`") });
  });
});
