import type { CoderResult } from "../../src/coder/types.js";
import type { ReviewThread } from "../../src/context/pr-data.js";
import { replyToThreads } from "../../src/report/reply-to-threads.js";
import { threadReplyMarker } from "../../src/github/markers.js";
import type { RunOutcome } from "../../src/run/run-outcome.js";
import { changedResult } from "../../testkit/builders/run-fixtures.js";
import nock from "nock";
import { RepoGitHub } from "../../src/github/repo-github.js";
import { GITHUB_API, testOctokit } from "../helpers/test-octokit.js";

const thread = (id: string, path: string, databaseId: number): ReviewThread => ({
  id,
  path,
  line: 3,
  isResolved: false,
  isOutdated: false,
  comments: [{ databaseId, author: "rev", body: "nit", diffHunk: "@@" }],
});
const threads = [thread("PRRT_a", "src/a.ts", 71), thread("PRRT_b", "src/b.ts", 72), thread("PRRT_c", "src/c.ts", 73)];
const explanation =
  "Done.\nTHREAD PRRT_a: renamed x to count.\nTHREAD PRRT_b: left as is; the name is used by the public API.\n";
const result = (over: Parameters<typeof changedResult>[0] = {}) =>
  changedResult({
    editedFiles: [{ path: "src/a.ts", added: 1, removed: 1 }],
    commit: { sha: "c".repeat(40), subject: "fix: x" },
    explanation,
    ...over,
  });
const pushed: RunOutcome = {
  kind: "pushed",
  result: result(),
  sha: "c".repeat(40),
  url: "https://github.com/acme/web/commit/ccc",
  elapsedMs: 1,
};

/**
 * acme/web's GitHub through nock on the real client: replies in review threads (REST) and resolving a thread
 * (GraphQL), answering `resolve` (an HTTP status refuses it). Each call replaces the previous one's answers.
 */
function github(resolve: "resolved" | number = "resolved") {
  nock.cleanAll();
  const replies: { to: number; body: string }[] = [];
  const resolved: string[] = [];
  const calls: string[] = [];
  nock(GITHUB_API)
    .persist()
    .post(/^\/repos\/acme\/web\/pulls\/4\/comments\/\d+\/replies$/)
    .reply((uri, body) => {
      calls.push("reply");
      replies.push({ to: Number(uri.split("/").at(-2)), body: (body as { body: string }).body });
      return [201, { id: 900 }];
    })
    .post("/graphql")
    .reply((_uri, body) => {
      const sent = body as { variables?: { threadId?: string }; threadId?: string };
      calls.push("graphql");
      resolved.push(String(sent.variables?.threadId ?? sent.threadId));
      return resolve === "resolved"
        ? [200, { data: { resolveReviewThread: { thread: { isResolved: true } } } }]
        : [resolve, { message: "Resource not accessible by integration" }];
    });
  return {
    github: RepoGitHub.create({ octokit: testOctokit(), owner: "acme", repo: "web" }),
    replies,
    resolved,
    calls,
  };
}

describe("replyToThreads", () => {
  beforeAll(() => nock.disableNetConnect());
  afterAll(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });
  it("replies in every thread and resolves only the ones the pushed commit fixed (reported on, file touched)", async () => {
    const g = github();
    const summary = await replyToThreads({
      github: g.github,
      pull: 4,
      jobId: "job-1",
      threads,
      outcome: pushed,
      resolve: true,
    });
    expect(g.replies.map((r) => r.to)).toEqual([71, 72, 73]);
    expect(g.replies[0]!.body).toBe(
      `${threadReplyMarker("job-1", "PRRT_a")}\n` +
        "🤖 renamed x to count.\n\nChanged in [`ccccccc`](https://github.com/acme/web/commit/ccc).\n\n<sub>I resolved this thread (`reviews.resolve_threads: true`); unresolve it if you disagree.</sub>",
    );
    // Reported on, but its file was not touched: not resolved, no commit link.
    expect(g.replies[1]!.body).toBe(
      `${threadReplyMarker("job-1", "PRRT_b")}\n🤖 left as is; the name is used by the public API.`,
    );
    expect(g.replies[2]!.body).toContain("did not say anything about this thread");
    expect(g.resolved).toEqual(["PRRT_a"]);
    expect(summary).toBe(
      "**Review threads**\n- `PRRT_a` (`src/a.ts`): addressed, resolved\n- `PRRT_b` (`src/b.ts`): not changed\n- `PRRT_c` (`src/c.ts`): not changed",
    );
  });

  it("never resolves when the config says no, and nothing when nothing was pushed", async () => {
    const g = github();
    await replyToThreads({
      github: g.github,
      pull: 4,
      jobId: "job-1",
      threads,
      outcome: pushed,
      resolve: false,
    });
    expect(g.calls).not.toContain("graphql");
    const h = github();
    const notPushed: RunOutcome = {
      kind: "not-pushed",
      result: { ...result(), outcome: "edit-failed", failures: [], editedFiles: [] } as unknown as CoderResult,
      elapsedMs: 1,
    };
    await replyToThreads({
      github: h.github,
      pull: 4,
      jobId: "job-1",
      threads,
      outcome: notPushed,
      resolve: true,
    });
    expect(h.calls).not.toContain("graphql");
    expect(h.replies[0]!.body).toContain("(Nothing was pushed; my status comment says why.)");
  });

  it("a re-run of the job (its worker died after replying) does not reply again where its reply is already in the thread", async () => {
    const g = github();
    const answered: ReviewThread = {
      ...threads[0]!,
      comments: [
        ...threads[0]!.comments,
        {
          databaseId: 900,
          author: "aider-bot",
          body: `${threadReplyMarker("job-1", "PRRT_a")}\n🤖 renamed x to count.`,
        },
      ],
    };
    const summary = await replyToThreads({
      github: g.github,
      pull: 4,
      jobId: "job-1",
      threads: [answered, threads[1]!],
      outcome: pushed,
      resolve: true,
    });
    expect(g.replies.map((r) => r.to)).toEqual([72]);
    expect(summary).toContain("`PRRT_a` (`src/a.ts`): addressed, resolved");
    // Another run's reply in the thread is no reason to stay silent.
    const h = github();
    await replyToThreads({
      github: h.github,
      pull: 4,
      jobId: "job-2",
      threads: [answered],
      outcome: pushed,
      resolve: false,
    });
    expect(h.replies.map((r) => r.to)).toEqual([71]);
  });

  it("a failed resolve or reply is a line in the summary, not a failure; an errored run replies nowhere", async () => {
    const g = github(403);
    const summary = await replyToThreads({
      github: g.github,
      pull: 4,
      jobId: "job-1",
      threads: [threads[0]!],
      outcome: pushed,
      resolve: true,
    });
    expect(summary).toContain("`PRRT_a` (`src/a.ts`): addressed — could not resolve it (HTTP 403)");
    expect(g.replies[0]!.body).not.toContain("I resolved this thread");
    const e = github();
    expect(
      await replyToThreads({
        github: e.github,
        pull: 4,
        jobId: "job-1",
        threads,
        outcome: { kind: "error", message: "x" },
        resolve: true,
      }),
    ).toBeNull();
    expect(e.calls).toEqual([]);
  });
});
