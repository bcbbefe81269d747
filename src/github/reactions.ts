import type { GitHubApi, RepoRef } from "./github-api.js";

/** What a reaction goes on: the comment that carried the command, or the issue itself for label triggers. */
export type ReactionTarget = { kind: "issue"; number: number } | { kind: "issue-comment"; id: number } | { kind: "review-comment"; id: number };

/** The reactions the bot uses: 👀 when a request is accepted, 🚀 / 😕 when it ends. */
export type BotReaction = "eyes" | "rocket" | "confused";

/**
 * Add a reaction. Idempotent by GitHub's own rules: the same user adding the same reaction twice gets the existing
 * one back (200), so a redelivered webhook does not stack reactions.
 */
export async function addReaction(api: GitHubApi, where: RepoRef, target: ReactionTarget, content: BotReaction): Promise<void> {
  const base = { owner: where.owner, repo: where.repo, content };
  if (target.kind === "issue") {
    await api.request("POST /repos/{owner}/{repo}/issues/{issue_number}/reactions", { ...base, issue_number: target.number });
  } else if (target.kind === "issue-comment") {
    await api.request("POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", { ...base, comment_id: target.id });
  } else {
    await api.request("POST /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions", { ...base, comment_id: target.id });
  }
}
