import type { GitHubApi, RepoRef } from "./github-api.js";

/**
 * Reply in the review thread of `commentId` (the comment that carried `/aider`), or edit the bot's earlier reply
 * there that carries `marker`, so a retried job does not answer twice. Returns the reply's id.
 */
export async function ensureReviewReply(
  api: GitHubApi,
  args: RepoRef & { pullNumber: number; commentId: number; marker: string; body: string; botLogin?: string },
): Promise<number> {
  const { owner, repo } = args;
  const body = args.body.includes(args.marker) ? args.body : `${args.marker}\n${args.body}`;
  const existing = await findReviewReply(api, args);
  if (existing !== null) {
    await api.request("PATCH /repos/{owner}/{repo}/pulls/comments/{comment_id}", { owner, repo, comment_id: existing, body });
    return existing;
  }
  const res = await api.request("POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies", {
    owner,
    repo,
    pull_number: args.pullNumber,
    comment_id: args.commentId,
    body,
  });
  return res.data.id as number;
}

async function findReviewReply(api: GitHubApi, args: RepoRef & { pullNumber: number; commentId: number; marker: string; botLogin?: string }): Promise<number | null> {
  for (let page = 1; page <= 20; page++) {
    const res = await api.request("GET /repos/{owner}/{repo}/pulls/{pull_number}/comments", { owner: args.owner, repo: args.repo, pull_number: args.pullNumber, per_page: 100, page });
    const items = res.data as { id: number; body?: string; in_reply_to_id?: number; user?: { login?: string } }[];
    const hit = items.find(
      (c) => c.in_reply_to_id === args.commentId && (c.body ?? "").includes(args.marker) && (!args.botLogin || c.user?.login === args.botLogin),
    );
    if (hit) return hit.id;
    if (items.length < 100) break;
  }
  return null;
}
