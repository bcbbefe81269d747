import type { ReviewThread } from "../pr-data.js";
import type { GitHubReader, RepoRef } from "./github-reader.js";

// Review threads exist only in GraphQL. 100 threads × 50 comments per page; later pages follow `endCursor`.
const THREADS = `query($owner: String!, $repo: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $repo) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes {
          id isResolved isOutdated path line originalLine
          comments(first: 50) { nodes { databaseId body diffHunk author { login } } }
        }
      }
    }
  }
}`;

interface ThreadsPage {
  repository: {
    pullRequest: {
      reviewThreads: {
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
        nodes: {
          id: string;
          isResolved: boolean;
          isOutdated: boolean;
          path: string;
          line: number | null;
          originalLine: number | null;
          comments: {
            nodes: { databaseId: number | null; body: string; diffHunk: string; author: { login: string } | null }[];
          };
        }[];
      };
    } | null;
  } | null;
}

/** Every review thread of a PR with its comments and hunk (up to 5 pages of 100). */
export async function fetchReviewThreads(api: GitHubReader, where: RepoRef, pull: number): Promise<ReviewThread[]> {
  const out: ReviewThread[] = [];
  let after: string | null = null;
  for (let page = 0; page < 5; page++) {
    const data: ThreadsPage = await api.graphql<ThreadsPage>(THREADS, {
      owner: where.owner,
      repo: where.repo,
      number: pull,
      after,
    });
    const threads = data.repository?.pullRequest?.reviewThreads;
    if (!threads) break;
    for (const t of threads.nodes) {
      out.push({
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
      });
    }
    if (!threads.pageInfo.hasNextPage) break;
    after = threads.pageInfo.endCursor;
  }
  return out;
}

/** Mark a thread resolved (needs `pull_requests: write`). */
export async function resolveReviewThread(api: GitHubReader, threadId: string): Promise<boolean> {
  const data = await api.graphql<{ resolveReviewThread: { thread: { isResolved: boolean } } }>(
    `mutation($threadId: ID!) { resolveReviewThread(input: { threadId: $threadId }) { thread { isResolved } } }`,
    { threadId },
  );
  return data.resolveReviewThread.thread.isResolved;
}

/** Reply in a thread (REST: a reply to its first comment). */
export async function replyInThread(
  api: GitHubReader,
  where: RepoRef,
  pull: number,
  thread: ReviewThread,
  body: string,
): Promise<number> {
  const first = thread.comments.find((c) => c.databaseId !== null);
  if (!first || first.databaseId === null) throw new Error(`Review thread ${thread.id} has no comment to reply to.`);
  const { data } = await api.request("POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies", {
    ...where,
    pull_number: pull,
    comment_id: first.databaseId,
    body,
  });
  return (data as { id: number }).id;
}
