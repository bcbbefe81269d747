import type { GitHubClient, RepoRef } from "./github-client.js";
import { callGitHub } from "./github-error.js";

/** What a reaction goes on: the comment that carried the command, or the issue itself for label triggers. */
export type ReactionTarget =
  { kind: "issue"; number: number } | { kind: "issue-comment"; id: number } | { kind: "review-comment"; id: number };

/** The reactions the bot uses: 👀 when a request is accepted, 🚀 / 😕 when it ends. */
export type BotReaction = "eyes" | "rocket" | "confused";

/**
 * Add a reaction. Idempotent by GitHub's own rules: the same user adding the same reaction twice gets the existing
 * one back (200), so a redelivered webhook does not stack reactions.
 */
export async function addReaction(
  api: GitHubClient,
  where: RepoRef,
  target: ReactionTarget,
  content: BotReaction,
): Promise<void> {
  const { owner, repo } = where;
  await callGitHub(`Adding the ${content} reaction on ${owner}/${repo}`, () => {
    if (target.kind === "issue")
      return api.rest.reactions.createForIssue({ owner, repo, issue_number: target.number, content });
    if (target.kind === "issue-comment")
      return api.rest.reactions.createForIssueComment({ owner, repo, comment_id: target.id, content });
    return api.rest.reactions.createForPullRequestReviewComment({ owner, repo, comment_id: target.id, content });
  });
}
