import type { GitHubClient, RepoRef } from "./github-client.js";
import { callGitHub } from "./github-error.js";

/** What a run needs to know of a repository: where to clone it from and its default branch. */
export interface RepositoryInfo {
  cloneUrl: string;
  defaultBranch: string;
}

/** A repository's clone URL and default branch. */
export async function getRepository(api: GitHubClient, args: RepoRef): Promise<RepositoryInfo> {
  const { data } = await callGitHub(`Reading repository ${args.owner}/${args.repo}`, () =>
    api.rest.repos.get({ owner: args.owner, repo: args.repo }),
  );
  return { cloneUrl: data.clone_url, defaultBranch: data.default_branch };
}

/** The commit a branch (or any ref) points at. */
export async function getCommitSha(api: GitHubClient, args: RepoRef & { ref: string }): Promise<string> {
  const { data } = await callGitHub(`Reading ${args.ref} of ${args.owner}/${args.repo}`, () =>
    api.rest.repos.getCommit({ owner: args.owner, repo: args.repo, ref: args.ref }),
  );
  return data.sha;
}

/** A file of a branch's tree: its path and size in bytes. */
export interface TreeFile {
  path: string;
  size?: number;
}

/**
 * Every file (blob) of a branch, from the git tree API in one request. GitHub caps a recursive tree (100,000 entries
 * or 7 MB) and says so: `truncated` is then true and the list is partial.
 */
export async function listBranchFiles(
  api: GitHubClient,
  args: RepoRef & { branch: string },
): Promise<{ files: TreeFile[]; truncated: boolean }> {
  const { data } = await callGitHub(`Listing the files of ${args.owner}/${args.repo} branch ${args.branch}`, () =>
    api.rest.git.getTree({ owner: args.owner, repo: args.repo, tree_sha: args.branch, recursive: "1" }),
  );
  return {
    files: data.tree
      .filter((e) => e.type === "blob" && e.path)
      .map((e) => ({ path: e.path, ...(e.size !== undefined ? { size: e.size } : {}) })),
    truncated: data.truncated === true,
  };
}
