import nock from "nock";
import { capText, completeCheckRun, startCheckRun } from "../../src/github/check-run.js";
import { createComment, listComments, readCommentBody } from "../../src/github/ensure-comment.js";
import { ensureStatusComment } from "../../src/github/ensure-status-comment.js";
import type { GitHubClient } from "../../src/github/github-client.js";
import { ensurePullRequest, getPullRequestHead, renderPullRequestBody } from "../../src/github/pull-request.js";
import { addReaction } from "../../src/github/reactions.js";
import { ensureReviewReply } from "../../src/github/review-reply.js";
import { GITHUB_API as API, nextPage, testOctokit } from "../helpers/test-octokit.js";
import { ProbotOctokit } from "probot";
import { githubWriteGuard } from "../../src/github/guard-github-writes.js";
import { createSecretRedactor, REDACTED } from "../../src/security/redact-secrets.js";

const R = "/repos/acme/web";
const where = { owner: "acme", repo: "web" };
type Body = Record<string, unknown>;

describe("GitHub adapters over a real Octokit and nock", () => {
  let api: GitHubClient;
  beforeEach(() => {
    nock.disableNetConnect();
    api = testOctokit();
  });
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    nock.enableNetConnect();
    expect(pending).toEqual([]);
  });

  it.each([
    [{ kind: "issue", number: 3 } as const, `${R}/issues/3/reactions`],
    [{ kind: "issue-comment", id: 7 } as const, `${R}/issues/comments/7/reactions`],
    [{ kind: "review-comment", id: 8 } as const, `${R}/pulls/comments/8/reactions`],
  ])("reaction on %j", async (target, path) => {
    nock(API).post(path, { content: "rocket" }).reply(201, {});
    await addReaction(api, where, target, "rocket");
  });

  describe("status comment", () => {
    it("creates it with the run marker when none exists", async () => {
      nock(API)
        .get(`${R}/issues/3/comments`)
        .query(true)
        .reply(200, [{ id: 1, body: "<!-- aider-bot:run:other -->", user: { login: "bot[bot]" } }])
        .post(`${R}/issues/3/comments`, (b: Body) => b.body === "<!-- aider-bot:run:j1 -->\nqueued")
        .reply(201, { id: 2 });
      expect(
        await ensureStatusComment(api, { ...where, issueNumber: 3, jobId: "j1", body: "queued", botLogin: "bot[bot]" }),
      ).toBe(2);
    });

    it("edits the bot's comment with the marker, ignoring a user's copy of the marker", async () => {
      nock(API)
        .get(`${R}/issues/3/comments`)
        .query(true)
        .reply(200, [
          { id: 4, body: "<!-- aider-bot:run:j1 -->\nold", user: { login: "bot[bot]" } },
          { id: 5, body: "quoting <!-- aider-bot:run:j1 -->", user: { login: "mallory" } },
        ])
        .patch(`${R}/issues/comments/4`, { body: "<!-- aider-bot:run:j1 -->\nthinking" })
        .reply(200, { id: 4 });
      expect(
        await ensureStatusComment(api, {
          ...where,
          issueNumber: 3,
          jobId: "j1",
          body: "thinking",
          botLogin: "bot[bot]",
        }),
      ).toBe(4);
    });

    it("edits a known comment id directly", async () => {
      nock(API).patch(`${R}/issues/comments/9`).reply(200, { id: 9 });
      expect(
        await ensureStatusComment(api, { ...where, issueNumber: 3, jobId: "j1", body: "done", commentId: 9 }),
      ).toBe(9);
    });
  });

  describe("check run", () => {
    it("starts in progress on the head commit and completes with a capped summary", async () => {
      nock(API)
        .post(
          `${R}/check-runs`,
          (b: Body) => b.head_sha === "abc" && b.status === "in_progress" && b.name === "aider-bot",
        )
        .reply(201, { id: 77 })
        .patch(
          `${R}/check-runs/77`,
          (b: { conclusion: string; output: { summary: string; title: string } }) =>
            b.conclusion === "failure" && b.output.summary.length <= 65_535 && b.output.summary.endsWith("(truncated)"),
        )
        .reply(200, {});
      const id = await startCheckRun(api, { ...where, headSha: "abc" });
      expect(id).toBe(77);
      await completeCheckRun(api, {
        ...where,
        id: id!,
        conclusion: "failure",
        title: "Tests still fail",
        summary: "x".repeat(70_000),
      });
    });

    it("is skipped (null) when the App lacks the checks permission, but other errors surface", async () => {
      nock(API).post(`${R}/check-runs`).reply(403, { message: "Resource not accessible by integration" });
      expect(await startCheckRun(api, { ...where, headSha: "abc" })).toBeNull();
      nock(API).post(`${R}/check-runs`).reply(500, { message: "down" });
      await expect(startCheckRun(api, { ...where, headSha: "abc" })).rejects.toThrow();
    });

    it("capText keeps short text and marks cut text", () => {
      expect(capText("abc", 10)).toBe("abc");
      expect(capText("a".repeat(100), 40)).toHaveLength(40);
    });
  });

  describe("pull request", () => {
    it("returns the open PR for the branch instead of opening another", async () => {
      nock(API)
        .get(`${R}/pulls`)
        .query({ head: "acme:aider/issue-3", state: "open", per_page: "1" })
        .reply(200, [{ number: 12, html_url: "https://github.com/acme/web/pull/12" }]);
      expect(
        await ensurePullRequest(api, {
          ...where,
          head: "aider/issue-3",
          base: "main",
          title: "t",
          body: "b",
          draft: true,
        }),
      ).toEqual({
        number: 12,
        url: "https://github.com/acme/web/pull/12",
        created: false,
      });
    });

    it("opens a draft, falls back to a ready PR where drafts are unsupported, and requests review", async () => {
      nock(API)
        .get(`${R}/pulls`)
        .query(true)
        .reply(200, [])
        .post(`${R}/pulls`, (b: Body) => b.draft === true)
        .reply(422, { message: "Draft pull requests are not supported in this repository." })
        .post(`${R}/pulls`, (b: Body) => b.draft === false && b.head === "aider/issue-3" && b.base === "main")
        .reply(201, { number: 13, html_url: "https://github.com/acme/web/pull/13" })
        .post(`${R}/pulls/13/requested_reviewers`, { reviewers: ["ann"] })
        .reply(422, { message: "not a collaborator" });
      expect(
        await ensurePullRequest(api, {
          ...where,
          head: "aider/issue-3",
          base: "main",
          title: "t",
          body: "b",
          draft: true,
          reviewer: "ann",
        }),
      ).toEqual({
        number: 13,
        url: "https://github.com/acme/web/pull/13",
        created: true,
      });
    });

    it("falls back to a ready PR when GitHub puts the draft refusal in the 422's errors", async () => {
      nock(API)
        .get(`${R}/pulls`)
        .query(true)
        .reply(200, [])
        .post(`${R}/pulls`, (b: Body) => b.draft === true)
        .reply(422, {
          message: "Validation Failed",
          errors: [
            {
              resource: "PullRequest",
              code: "custom",
              message: "Draft pull requests are not supported in this repository.",
            },
          ],
        })
        .post(`${R}/pulls`, (b: Body) => b.draft === false)
        .reply(201, { number: 14, html_url: "https://github.com/acme/web/pull/14" });
      expect(
        await ensurePullRequest(api, {
          ...where,
          head: "aider/issue-3",
          base: "main",
          title: "t",
          body: "b",
          draft: true,
        }),
      ).toEqual({
        number: 14,
        url: "https://github.com/acme/web/pull/14",
        created: true,
      });
    });

    it("does not hide other validation errors", async () => {
      nock(API)
        .get(`${R}/pulls`)
        .query(true)
        .reply(200, [])
        .post(`${R}/pulls`)
        .reply(422, { message: "No commits between main and aider/x" });
      await expect(
        ensurePullRequest(api, { ...where, head: "aider/x", base: "main", title: "t", body: "b", draft: true }),
      ).rejects.toThrow(/No commits/);
    });

    it("renders a body that fixes the issue and links the run", () => {
      const body = renderPullRequestBody({
        issueNumber: 3,
        runUrl: "https://github.com/acme/web/issues/3#issuecomment-9",
        requester: "ann",
      });
      expect(body.split("\n")[0]).toBe("Fixes #3");
      expect(body).toContain("[this run](https://github.com/acme/web/issues/3#issuecomment-9) requested by @ann");
    });
  });

  describe("review reply", () => {
    const marker = "<!-- aider-bot:run:r1 -->";
    it("replies in the thread of the triggering comment", async () => {
      nock(API)
        .get(`${R}/pulls/2/comments`)
        .query(true)
        .reply(200, [{ id: 50, body: "/aider fix", user: { login: "ann" } }])
        .post(`${R}/pulls/2/comments/50/replies`, (b: Body) => b.body === `${marker}\ndone`)
        .reply(201, { id: 51 });
      expect(
        await ensureReviewReply(api, {
          ...where,
          pullNumber: 2,
          commentId: 50,
          marker,
          body: "done",
          botLogin: "bot[bot]",
        }),
      ).toBe(51);
    });

    it("edits its earlier reply in that thread", async () => {
      nock(API)
        .get(`${R}/pulls/2/comments`)
        .query(true)
        .reply(200, [{ id: 51, in_reply_to_id: 50, body: `${marker}\nold`, user: { login: "bot[bot]" } }])
        .patch(`${R}/pulls/comments/51`, { body: `${marker}\nnew` })
        .reply(200, {});
      expect(
        await ensureReviewReply(api, {
          ...where,
          pullNumber: 2,
          commentId: 50,
          marker,
          body: "new",
          botLogin: "bot[bot]",
        }),
      ).toBe(51);
    });
  });

  describe("comments", () => {
    it("lists every page GitHub links to, not only full pages of 100", async () => {
      nock(API)
        .get(`${R}/issues/3/comments`)
        .query({ per_page: "100" })
        .reply(200, [{ id: 1, body: "a", user: { login: "ann" } }], nextPage(`${R}/issues/3/comments`, 2))
        .get(`${R}/issues/3/comments`)
        .query({ per_page: "100", page: "2" })
        .reply(200, [{ id: 2, body: null, user: null }]);
      expect(await listComments(api, { ...where, issueNumber: 3 })).toEqual([
        { id: 1, body: "a", user: "ann" },
        { id: 2, body: "", user: "" },
      ]);
    });

    it("stops after 20 pages of a huge thread", async () => {
      const scope = nock(API);
      for (let page = 1; page <= 20; page++) {
        scope
          .get(`${R}/issues/3/comments`)
          .query(page === 1 ? { per_page: "100" } : { per_page: "100", page: String(page) })
          .reply(200, [{ id: page, body: "x", user: { login: "ann" } }], nextPage(`${R}/issues/3/comments`, page + 1));
      }
      expect(await listComments(api, { ...where, issueNumber: 3 })).toHaveLength(20);
    });

    it("reads a comment's body back, issue or review comment, and null when it is gone", async () => {
      nock(API)
        .get(`${R}/issues/comments/5`)
        .reply(200, { id: 5, body: "/aider fix it" })
        .get(`${R}/pulls/comments/6`)
        .reply(200, { id: 6, body: "/aider here" })
        .get(`${R}/issues/comments/7`)
        .reply(404, { message: "Not Found" });
      expect(await readCommentBody(api, { ...where, kind: "issue-comment", id: 5 })).toBe("/aider fix it");
      expect(await readCommentBody(api, { ...where, kind: "review-comment", id: 6 })).toBe("/aider here");
      expect(await readCommentBody(api, { ...where, kind: "issue-comment", id: 7 })).toBeNull();
    });

    it("writes through the Octokit it is given, so that Octokit's write guard redacts the body", async () => {
      const secret = "sk-the-model-key-0123456789";
      const quiet = () => undefined;
      const Guarded = ProbotOctokit.plugin(githubWriteGuard(createSecretRedactor([secret])));
      const guarded = new Guarded({
        auth: { token: "t" },
        retry: { enabled: false },
        throttle: { enabled: false },
        log: { debug: quiet, info: quiet, warn: quiet, error: quiet },
      });
      nock(API)
        .post(`${R}/issues/3/comments`, { body: `key ${REDACTED}` })
        .reply(201, { id: 8 });
      expect(await createComment(guarded, { ...where, issueNumber: 3, body: `key ${secret}` })).toBe(8);
    });
  });

  describe("pull request head", () => {
    it("reads head, base and whether the head is a fork; a deleted head repository has no clone URL", async () => {
      nock(API)
        .get(`${R}/pulls/4`)
        .reply(200, {
          number: 4,
          html_url: "https://github.com/acme/web/pull/4",
          base: { ref: "main" },
          head: {
            ref: "feat",
            sha: "abc",
            repo: { full_name: "mallory/web", clone_url: "https://github.com/mallory/web.git" },
          },
        })
        .get(`${R}/pulls/5`)
        .reply(200, {
          number: 5,
          html_url: "https://github.com/acme/web/pull/5",
          base: { ref: "main" },
          head: { ref: "gone", sha: "def", repo: null },
        });
      expect(await getPullRequestHead(api, { ...where, pullNumber: 4 })).toEqual({
        number: 4,
        headRef: "feat",
        headSha: "abc",
        headCloneUrl: "https://github.com/mallory/web.git",
        isFork: true,
        url: "https://github.com/acme/web/pull/4",
        baseRef: "main",
      });
      expect(await getPullRequestHead(api, { ...where, pullNumber: 5 })).toMatchObject({
        headCloneUrl: null,
        isFork: true,
      });
    });
  });

  it("a rate limit on a Check Run is not taken for a missing permission", async () => {
    nock(API)
      .post(`${R}/check-runs`)
      .reply(403, { message: "You have exceeded a secondary rate limit" }, { "retry-after": "30" });
    await expect(startCheckRun(api, { ...where, headSha: "abc" })).rejects.toMatchObject({
      kind: "rate-limited",
      retryAfterSeconds: 30,
    });
  });

  it("a review reply is found on a later page of the review comments", async () => {
    const marker = "<!-- aider-bot:run:r2 -->";
    nock(API)
      .get(`${R}/pulls/2/comments`)
      .query({ per_page: "100" })
      .reply(200, [{ id: 50, body: "/aider fix", user: { login: "ann" } }], nextPage(`${R}/pulls/2/comments`, 2))
      .get(`${R}/pulls/2/comments`)
      .query({ per_page: "100", page: "2" })
      .reply(200, [{ id: 52, in_reply_to_id: 50, body: `${marker}\nold`, user: { login: "bot[bot]" } }])
      .patch(`${R}/pulls/comments/52`, { body: `${marker}\nnew` })
      .reply(200, {});
    expect(
      await ensureReviewReply(api, {
        ...where,
        pullNumber: 2,
        commentId: 50,
        marker,
        body: "new",
        botLogin: "bot[bot]",
      }),
    ).toBe(52);
  });
});
