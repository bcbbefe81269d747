import type { RunGitHub } from "../run/run-ports.js";
import type { GitHubApi } from "./github-api.js";

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
  return {
    async updateStatus(body) {
      await api.request("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", { owner, repo, comment_id: ctx.statusCommentId, body });
    },
    async react(content) {
      const t = ctx.reactTo;
      if (t.kind === "issue") await api.request("POST /repos/{owner}/{repo}/issues/{issue_number}/reactions", { owner, repo, issue_number: ctx.issueNumber, content });
      else if (t.kind === "issue-comment") await api.request("POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", { owner, repo, comment_id: t.id, content });
      else await api.request("POST /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions", { owner, repo, comment_id: t.id, content });
    },
    async startCheckRun(headSha) {
      const res = await api.request("POST /repos/{owner}/{repo}/check-runs", { owner, repo, name: "aider-bot", head_sha: headSha, status: "in_progress", started_at: new Date().toISOString() });
      return res.data.id as number;
    },
    async finishCheckRun(id, r) {
      await api.request("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}", {
        owner, repo, check_run_id: id, status: "completed", conclusion: r.conclusion, completed_at: new Date().toISOString(),
        output: { title: r.title, summary: r.summary.slice(0, 65_000) },
      });
    },
    async findOpenPullRequest(branch) {
      const res = await api.request("GET /repos/{owner}/{repo}/pulls", { owner, repo, head: `${owner}:${branch}`, state: "open" });
      const pr = (res.data as { number: number; html_url: string }[])[0];
      return pr ? { number: pr.number, url: pr.html_url } : null;
    },
    async createPullRequest(pr) {
      const res = await api.request("POST /repos/{owner}/{repo}/pulls", { owner, repo, ...pr });
      return { number: res.data.number as number, url: res.data.html_url as string };
    },
    async requestReview(pullNumber, login) {
      await api.request("POST /repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers", { owner, repo, pull_number: pullNumber, reviewers: [login] });
    },
    async replyToReviewComment(pullNumber, commentId, body) {
      await api.request("POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies", { owner, repo, pull_number: pullNumber, comment_id: commentId, body });
    },
    installationToken: ctx.token,
    commitUrl: (sha) => `${ctx.webUrl}/${owner}/${repo}/commit/${sha}`,
  };
}
