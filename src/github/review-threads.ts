import type { GitHubClient, RepoRef } from "./github-client.js";
import { callGitHub } from "./github-error.js";

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

const RESOLVE = `mutation($threadId: ID!) { resolveReviewThread(input: { threadId: $threadId }) { thread { isResolved } } }`;

/** One review thread as the GraphQL query above returns it. */
export interface ReviewThreadData {
  id: string;
  isResolved: boolean;
  isOutdated: boolean;
  path: string;
  line: number | null;
  originalLine: number | null;
  comments: {
    nodes: { databaseId: number | null; body: string; diffHunk: string; author: { login: string } | null }[];
  };
}

interface ThreadsPage {
  repository: {
    pullRequest: {
      reviewThreads: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: ReviewThreadData[] };
    } | null;
  } | null;
}

/** Every review thread of a PR with its first 50 comments, up to `maxPages` pages of 100 threads. */
export async function listReviewThreads(
  api: GitHubClient,
  args: RepoRef & { pullNumber: number; maxPages: number },
): Promise<ReviewThreadData[]> {
  const out: ReviewThreadData[] = [];
  let after: string | null = null;
  for (let page = 0; page < args.maxPages; page++) {
    const variables = { owner: args.owner, repo: args.repo, number: args.pullNumber, after };
    const data: ThreadsPage = await callGitHub(
      `Reading the review threads of ${args.owner}/${args.repo}#${args.pullNumber}`,
      () => api.graphql<ThreadsPage>(THREADS, variables),
    );
    const threads = data.repository?.pullRequest?.reviewThreads;
    if (!threads) break;
    out.push(...threads.nodes);
    if (!threads.pageInfo.hasNextPage) break;
    after = threads.pageInfo.endCursor;
  }
  return out;
}

/** Mark a review thread resolved (needs `pull_requests: write`); whether GitHub reports it resolved. */
export async function resolveReviewThread(api: GitHubClient, threadId: string): Promise<boolean> {
  const data = await callGitHub(`Resolving review thread ${threadId}`, () =>
    api.graphql<{ resolveReviewThread: { thread: { isResolved: boolean } } }>(RESOLVE, { threadId }),
  );
  return data.resolveReviewThread.thread.isResolved;
}
