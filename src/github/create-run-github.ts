import type { RunGitHub } from "../run/run-ports.js";
import { completeCheckRun, startCheckRun } from "./check-run.js";
import type { GitHubApi } from "./github-api.js";
import { ensurePullRequest, findPullRequestForBranch, requestReview } from "./pull-request.js";
import { addReaction, type ReactionTarget } from "./reactions.js";
import { ensureReviewReply } from "./review-reply.js";

/** {@link RunGitHub} over an installation Octokit, bound to one repository, issue/PR and status comment. */
export function createRunGitHub(api: GitHubApi, ctx: {
  owner: string;
  repo: string;
  issueNumber: number;
  statusCommentId: number;
  /** What the 🚀/😕 reaction goes on. */
  reactTo: { kind: "issue-comment" | "review-comment"; id: number } | { kind: "issue" };
  webUrl: string;
  token: () => Promise<string>;
}): RunGitHub {
  const { owner, repo } = ctx;
  const where = { owner, repo };
  const reactionTarget: ReactionTarget = ctx.reactTo.kind === "issue" ? { kind: "issue", number: ctx.issueNumber } : ctx.reactTo;
  return {
    async updateStatus(body) {
      await api.request("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", { owner, repo, comment_id: ctx.statusCommentId, body });
    },
    react: (content) => addReaction(api, where, reactionTarget, content),
    startCheckRun: (headSha) => startCheckRun(api, { ...where, headSha }),
    finishCheckRun: (id, r) => completeCheckRun(api, { ...where, id, conclusion: r.conclusion, title: r.title, summary: r.summary }),
    findOpenPullRequest: (branch) => findPullRequestForBranch(api, { ...where, branch }),
    async createPullRequest(pr) {
      const made = await ensurePullRequest(api, { ...where, ...pr });
      return { number: made.number, url: made.url };
    },
    requestReview: (pullNumber, login) => requestReview(api, { ...where, pullNumber, login }),
    async replyToReviewComment(pullNumber, commentId, body) {
      // The final status carries the run marker: a retried job edits its reply instead of adding a second one.
      const marker = /<!-- aider-bot:run:[^>]*? -->/.exec(body)?.[0];
      if (marker) {
        await ensureReviewReply(api, { ...where, pullNumber, commentId, marker, body });
        return;
      }
      await api.request("POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies", { owner, repo, pull_number: pullNumber, comment_id: commentId, body });
    },
    installationToken: ctx.token,
    commitUrl: (sha) => `${ctx.webUrl}/${owner}/${repo}/commit/${sha}`,
  };
}
