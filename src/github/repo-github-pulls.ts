import type { GitHubClient, RepoBound, RepoRef } from "./github-client.js";
import {
  ensurePullRequest,
  findPullRequestForBranch,
  getPullRequest,
  getPullRequestHead,
  listClosingIssues,
  listOpenPullRequestsForBranch,
  listPullRequestFiles,
  requestReview,
  type ClosingIssueData,
  type PullRequestData,
  type PullRequestFileData,
  type PullRequestHead,
  type PullRequestRef,
} from "./pull-request.js";
import { ensureReviewReply, replyToReviewComment } from "./review-reply.js";
import { listReviewThreads, resolveReviewThread, type ReviewThreadData } from "./review-threads.js";

/**
 * Pull requests through the gateway: reads, opening one, review requests, review threads and replies in them.
 * Every method may also throw the transport kinds listed on {@link RepoGitHub}.
 */
export interface RepoGitHubPulls {
  /**
   * A pull request as GitHub describes it now.
   * @throws {@link GitHubError} `not-found`: no such PR (or it is an issue).
   */
  getPullRequest(pullNumber: number): Promise<PullRequestData>;
  /**
   * A PR's head (branch, commit, clone URL, whether it is a fork) and base branch.
   * @throws {@link GitHubError} `not-found`.
   */
  getPullRequestHead(pullNumber: number): Promise<PullRequestHead>;
  /**
   * The open PR whose head is `branch` of this repository, or null (no such branch is an answer, not a throw).
   * @throws {@link GitHubError} `not-found`: the repository is gone or the App was removed from it.
   */
  findPullRequestForBranch(branch: string): Promise<PullRequestRef | null>;
  /**
   * The open PRs (up to 10) whose head is `branch` of this repository, with where each head is; empty when none.
   * @throws {@link GitHubError} `not-found`: the repository is gone or the App was removed from it.
   */
  listOpenPullRequestsForBranch(
    branch: string,
  ): Promise<{ number: number; headRef: string; headSha: string; headFullName: string | null }[]>;
  /**
   * The open PR of `head`, or a new one (a draft refused with 422 is retried as a ready PR); asks `reviewer`.
   * @throws {@link GitHubError} `validation` (no commits between the branches, the base does not exist),
   * `forbidden` (no `pull_requests: write`), `not-found`.
   */
  ensurePullRequest(args: RepoBound<typeof ensurePullRequest>): Promise<PullRequestRef & { created: boolean }>;
  /**
   * Ask `login` to review; a `validation` answer (not a collaborator, the PR's author) is ignored.
   * @throws {@link GitHubError} `not-found`, `forbidden`.
   */
  requestReview(pullNumber: number, login: string): Promise<void>;
  /**
   * A PR's changed files with their patches, up to `maxPages` pages of 100.
   * @throws {@link GitHubError} `not-found`.
   */
  listPullRequestFiles(
    pullNumber: number,
    maxPages: number,
  ): Promise<{ items: PullRequestFileData[]; truncated: boolean }>;
  /**
   * The (first 10) issues a PR closes when merged (GraphQL).
   * @throws {@link GitHubError} `not-found`, `forbidden` (GraphQL `errors` are mapped like REST statuses).
   */
  listClosingIssues(pullNumber: number): Promise<ClosingIssueData[]>;
  /**
   * Every review thread with its first 50 comments, up to `maxPages` pages of 100 (GraphQL).
   * @throws {@link GitHubError} `not-found`, `forbidden`.
   */
  listReviewThreads(pullNumber: number, maxPages: number): Promise<ReviewThreadData[]>;
  /**
   * Mark a review thread resolved; whether GitHub reports it resolved (GraphQL).
   * @throws {@link GitHubError} `forbidden` (no `pull_requests: write`), `not-found`.
   */
  resolveReviewThread(threadId: string): Promise<boolean>;
  /**
   * A new reply in the review thread of `commentId`; its id.
   * @throws {@link GitHubError} `not-found` (the comment was deleted), `forbidden`, `validation`.
   */
  replyToReviewComment(args: { pullNumber: number; commentId: number; body: string }): Promise<number>;
  /**
   * Reply in the thread of `commentId`, or edit the bot's earlier reply there carrying `marker`; its id.
   * @throws {@link GitHubError} `not-found`, `forbidden`, `validation`.
   */
  ensureReviewReply(args: {
    pullNumber: number;
    commentId: number;
    marker: string;
    body: string;
    botLogin?: string;
  }): Promise<number>;
}

/** {@link RepoGitHubPulls} over `api`, bound to `where`. */
export function bindPulls(api: GitHubClient, where: RepoRef): RepoGitHubPulls {
  return {
    getPullRequest: (pullNumber) => getPullRequest(api, { ...where, pullNumber }),
    getPullRequestHead: (pullNumber) => getPullRequestHead(api, { ...where, pullNumber }),
    findPullRequestForBranch: (branch) => findPullRequestForBranch(api, { ...where, branch }),
    listOpenPullRequestsForBranch: (branch) => listOpenPullRequestsForBranch(api, { ...where, branch }),
    ensurePullRequest: (args) => ensurePullRequest(api, { ...where, ...args }),
    requestReview: (pullNumber, login) => requestReview(api, { ...where, pullNumber, login }),
    listPullRequestFiles: (pullNumber, maxPages) => listPullRequestFiles(api, { ...where, pullNumber, maxPages }),
    listClosingIssues: (pullNumber) => listClosingIssues(api, { ...where, pullNumber }),
    listReviewThreads: (pullNumber, maxPages) => listReviewThreads(api, { ...where, pullNumber, maxPages }),
    resolveReviewThread: (threadId) => resolveReviewThread(api, threadId),
    replyToReviewComment: (args) => replyToReviewComment(api, { ...where, ...args }),
    ensureReviewReply: (args) => ensureReviewReply(api, { ...where, ...args }),
  };
}
