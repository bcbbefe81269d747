import type { RepoGitHub } from "../../github/repo-github.js";
import type { ReviewThread } from "../pr-data.js";

/** Every review thread of a PR with its comments and hunk (up to 5 pages of 100). */
export async function fetchReviewThreads(github: RepoGitHub, pull: number): Promise<ReviewThread[]> {
  const threads = await github.listReviewThreads(pull, 5);
  return threads.map((t) => ({
    id: t.id,
    path: t.path,
    line: t.line ?? t.originalLine,
    isResolved: t.isResolved,
    isOutdated: t.isOutdated,
    comments: t.comments.nodes.map((c) => ({
      databaseId: c.databaseId,
      author: c.author?.login ?? "ghost",
      body: c.body,
      diffHunk: c.diffHunk,
    })),
  }));
}

/** Reply in a thread (REST: a reply to its first comment). Returns the reply's id. */
export async function replyInThread(
  github: RepoGitHub,
  pull: number,
  thread: ReviewThread,
  body: string,
): Promise<number> {
  const first = thread.comments.find((c) => c.databaseId !== null);
  if (!first || first.databaseId === null) throw new Error(`Review thread ${thread.id} has no comment to reply to.`);
  return github.replyToReviewComment({ pullNumber: pull, commentId: first.databaseId, body });
}
