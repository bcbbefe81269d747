import type { GitHubClient, RepoRef } from "./github-client.js";
import { callGitHub } from "./github-error.js";

/** At most this many pages of 100 review comments are searched for an earlier reply. */
const MAX_PAGES = 20;

/**
 * Reply in the review thread of `commentId` (the comment that carried `/aider`), or edit the bot's earlier reply
 * there that carries `marker`, so a retried job does not answer twice. Returns the reply's id.
 */
export async function ensureReviewReply(
  api: GitHubClient,
  args: RepoRef & { pullNumber: number; commentId: number; marker: string; body: string; botLogin?: string },
): Promise<number> {
  const { owner, repo } = args;
  const body = args.body.includes(args.marker) ? args.body : `${args.marker}\n${args.body}`;
  const existing = await findReviewReply(api, args);
  if (existing !== null) {
    await callGitHub(`Editing review comment ${existing} on ${owner}/${repo}`, () =>
      api.rest.pulls.updateReviewComment({ owner, repo, comment_id: existing, body }),
    );
    return existing;
  }
  return replyToReviewComment(api, { owner, repo, pullNumber: args.pullNumber, commentId: args.commentId, body });
}

/** A new reply in the review thread of `commentId`. Returns its id. */
export async function replyToReviewComment(
  api: GitHubClient,
  args: RepoRef & { pullNumber: number; commentId: number; body: string },
): Promise<number> {
  const { data } = await callGitHub(
    `Replying to review comment ${args.commentId} on ${args.owner}/${args.repo}#${args.pullNumber}`,
    () =>
      api.rest.pulls.createReplyForReviewComment({
        owner: args.owner,
        repo: args.repo,
        pull_number: args.pullNumber,
        comment_id: args.commentId,
        body: args.body,
      }),
  );
  return data.id;
}

/** The id of the bot's reply carrying `marker` in the thread of `commentId`, or null. */
async function findReviewReply(
  api: GitHubClient,
  args: RepoRef & { pullNumber: number; commentId: number; marker: string; botLogin?: string },
): Promise<number | null> {
  const pages = api.paginate.iterator(api.rest.pulls.listReviewComments, {
    owner: args.owner,
    repo: args.repo,
    pull_number: args.pullNumber,
    per_page: 100,
  });
  return callGitHub(`Listing the review comments of ${args.owner}/${args.repo}#${args.pullNumber}`, async () => {
    let read = 0;
    for await (const page of pages) {
      const hit = page.data.find(
        (c) =>
          c.in_reply_to_id === args.commentId &&
          c.body.includes(args.marker) &&
          (!args.botLogin || c.user?.login === args.botLogin),
      );
      if (hit) return hit.id;
      if (++read >= MAX_PAGES) break;
    }
    return null;
  });
}
