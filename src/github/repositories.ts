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

/** The numeric id of a GitHub user (or bot) login. */
export async function getUserId(api: GitHubClient, username: string): Promise<number> {
  const { data } = await callGitHub(`Looking up the GitHub user ${username}`, () =>
    api.rest.users.getByUsername({ username }),
  );
  return data.id;
}
