import { createInstallationToken } from "../github/installations.js";
import type { GitHubClient } from "../github/github-client.js";

/**
 * What a job's git token may do: read and write the repository's contents (clone, fetch, push). Everything else the
 * job does (comments, pull requests, Check Runs) goes through the app's API client, never through this token, which
 * is the one handed to git child processes.
 */
export const GIT_TOKEN_PERMISSIONS = { contents: "write", metadata: "read" } as const;

/**
 * What a job process's API token may do: the run's writes on GitHub (status comment, reactions, review replies,
 * pull request, Check Run) in its one repository. The job process never holds the App's key.
 */
export const JOB_API_TOKEN_PERMISSIONS = {
  issues: "write",
  pull_requests: "write",
  checks: "write",
  metadata: "read",
} as const;

/**
 * An installation token limited to one repository and {@link GIT_TOKEN_PERMISSIONS}, minted with the App's JWT
 * (`appApi` is `app.auth()` without an installation id). Even if a repository's script got hold of it, it could
 * touch no other repository of the installation, and only its contents, for at most an hour.
 * `await mintRepoToken(await app.auth(), 42, "app")`
 */
export async function mintRepoToken(
  appApi: GitHubClient,
  installationId: number,
  repo: string,
  permissions: Readonly<Record<string, string>> = GIT_TOKEN_PERMISSIONS,
): Promise<string> {
  const token = await createInstallationToken(appApi, { installationId, repositories: [repo], permissions });
  if (token === "") {
    throw new Error(
      `GitHub did not return an installation token for ${repo} (installation ${installationId}); check that the App is installed on it.`,
    );
  }
  return token;
}
