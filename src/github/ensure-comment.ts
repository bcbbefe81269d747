import type { GitHubClient, RepoRef } from "./github-client.js";
import { callGitHub, isGitHubFailure } from "./github-error.js";

/** An issue/PR comment as the bot reads it: `user` is the author's login ("" for a deleted account). */
export interface IssueComment {
  id: number;
  body: string;
  user: string;
}

/** At most this many pages of 100 comments are read: a thread longer than 2,000 comments is not searched further. */
const MAX_PAGES = 20;

/**
 * Create or update the bot's comment that carries `marker` on an issue/PR (idempotent: a redelivered webhook or a
 * retried job edits the same comment). Returns the comment id.
 */
export async function ensureComment(
  api: GitHubClient,
  args: RepoRef & {
    issueNumber: number;
    marker: string;
    body: string;
    botLogin?: string;
    /** The thread's comments, when the caller started reading them earlier (see findComment). */
    listed?: Promise<IssueComment[]>;
  },
): Promise<number> {
  const existing = await findComment(api, args);
  const body = args.body.includes(args.marker) ? args.body : `${args.marker}\n${args.body}`;
  if (existing) {
    await updateComment(api, { owner: args.owner, repo: args.repo, commentId: existing.id, body });
    return existing.id;
  }
  return createComment(api, { owner: args.owner, repo: args.repo, issueNumber: args.issueNumber, body });
}

/**
 * The bot's comment containing `marker`, newest first, or null. `listed`: the thread's comments as read earlier by the
 * caller (triage starts that read as the event arrives); otherwise they are listed now.
 */
export async function findComment(
  api: GitHubClient,
  args: RepoRef & { issueNumber: number; marker: string; botLogin?: string; listed?: Promise<IssueComment[]> },
): Promise<{ id: number; body: string } | null> {
  const all = await (args.listed ?? listComments(api, args));
  for (let i = all.length - 1; i >= 0; i--) {
    const c = all[i]!;
    if (args.botLogin && c.user !== args.botLogin) continue;
    if (c.body.includes(args.marker)) return { id: c.id, body: c.body };
  }
  return null;
}

/** Every comment of an issue/PR (paginated, up to 2,000), oldest first. */
export async function listComments(
  api: GitHubClient,
  args: RepoRef & { issueNumber: number },
): Promise<IssueComment[]> {
  let pages = 0;
  return callGitHub(`Listing the comments of ${args.owner}/${args.repo}#${args.issueNumber}`, () =>
    api.paginate(
      api.rest.issues.listComments,
      { owner: args.owner, repo: args.repo, issue_number: args.issueNumber, per_page: 100 },
      (response, done) => {
        if (++pages >= MAX_PAGES) done();
        return response.data.map((c) => ({ id: c.id, body: c.body ?? "", user: c.user?.login ?? "" }));
      },
    ),
  );
}

/** Post a new comment on an issue/PR. Returns its id. */
export async function createComment(
  api: GitHubClient,
  args: RepoRef & { issueNumber: number; body: string },
): Promise<number> {
  const { data } = await callGitHub(`Commenting on ${args.owner}/${args.repo}#${args.issueNumber}`, () =>
    api.rest.issues.createComment({
      owner: args.owner,
      repo: args.repo,
      issue_number: args.issueNumber,
      body: args.body,
    }),
  );
  return data.id;
}

/** Replace the body of an issue/PR comment. */
export async function updateComment(
  api: GitHubClient,
  args: RepoRef & { commentId: number; body: string },
): Promise<void> {
  await callGitHub(`Editing comment ${args.commentId} on ${args.owner}/${args.repo}`, () =>
    api.rest.issues.updateComment({ owner: args.owner, repo: args.repo, comment_id: args.commentId, body: args.body }),
  );
}

/**
 * The body of one comment — an issue/PR conversation comment or a review (diff) comment — or null when it is gone
 * (deleted, or no longer visible to the App): the caller tells the user, who can act on it.
 */
export async function readCommentBody(
  api: GitHubClient,
  args: RepoRef & { kind: "issue-comment" | "review-comment"; id: number },
): Promise<string | null> {
  const where = { owner: args.owner, repo: args.repo, comment_id: args.id };
  try {
    return await callGitHub(`Reading comment ${args.id} on ${args.owner}/${args.repo}`, async () =>
      args.kind === "review-comment"
        ? (await api.rest.pulls.getReviewComment(where)).data.body
        : ((await api.rest.issues.getComment(where)).data.body ?? ""),
    );
  } catch (error) {
    if (isGitHubFailure(error, "not-found")) return null;
    throw error;
  }
}
