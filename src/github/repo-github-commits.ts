import {
  createBranchRef,
  createCommitOnBranch,
  type ApiCommitRequest,
  type ApiCommitResult,
} from "./commit-on-branch.js";
import type { GitHubClient, RepoRef } from "./github-client.js";

/**
 * Commits GitHub makes (and signs) and new branches, through the gateway. Every method may also throw the
 * transport kinds listed on {@link RepoGitHub}.
 */
export interface RepoGitHubCommits {
  /**
   * One commit by GitHub's `createCommitOnBranch`, only while the branch is at `expectedHeadOid`: a moved branch
   * and a refusal (GraphQL `FORBIDDEN`: a fork that does not let the App push) are answers, not throws.
   * @throws {@link GitHubError} `not-found` (no such branch), `validation` (a change GitHub refuses), `other`
   * (GitHub answered without the new commit).
   */
  createCommitOnBranch(req: ApiCommitRequest): Promise<ApiCommitResult>;
  /**
   * A new branch at `sha`.
   * @throws {@link GitHubError} `validation` (the branch exists, or no such commit), `forbidden` (no `contents: write`).
   */
  createBranch(branch: string, sha: string): Promise<void>;
}

/** {@link RepoGitHubCommits} over `api`, bound to `where`. */
export function bindCommits(api: GitHubClient, where: RepoRef): RepoGitHubCommits {
  return {
    createCommitOnBranch: (req) => createCommitOnBranch(api, where, req),
    createBranch: (branch, sha) => createBranchRef(api, where, branch, sha),
  };
}
