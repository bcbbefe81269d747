import { createInstallationToken } from "../github/installations.js";
import type { GitHubClient } from "../github/github-client.js";
import { classifyGitHubError } from "../github/github-error.js";
import type { JobTokens } from "./job-token-prefetch.js";

/**
 * What a job's git token may do: read and write the repository's contents (clone, fetch, push). Everything else the
 * job does (comments, pull requests, Check Runs) goes through the app's API client, never through this token, which
 * is the one handed to git child processes.
 */
export const GIT_TOKEN_PERMISSIONS = { contents: "write", metadata: "read" } as const;

/**
 * What a job process's API token may do: the run's writes on GitHub (status comment, reactions, review replies,
 * pull request, Check Run) in its one repository, and the reads of its contents that build the run (the default
 * branch's workflows, manifests and instruction files, trees, commits): on a private repository GitHub refuses those
 * to a token without `contents`. Read only: the job's writes to the repository's contents go through git with its
 * git token. The job process never holds the App's key.
 */
export const JOB_API_TOKEN_PERMISSIONS = {
  issues: "write",
  pull_requests: "write",
  checks: "write",
  contents: "read",
  metadata: "read",
} as const;

/** Permissions a run can do without: the Check Run is skipped and the status comment says so. */
const OPTIONAL_PERMISSIONS: readonly string[] = ["checks"];

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

/**
 * A run job's two tokens limited to its repository: the API token (narrowed to what the installation granted:
 * without `checks` the run goes on and skips its Check Run) and the git token, minted together.
 */
export async function mintJobTokens(
  appApi: () => Promise<GitHubClient>,
  installationId: number,
  repo: string,
): Promise<JobTokens> {
  const [apiToken, gitToken] = await Promise.all([
    mintJobApiToken(await appApi(), installationId, repo).then((minted) => minted.token),
    mintRepoToken(await appApi(), installationId, repo),
  ]);
  return { apiToken, gitToken };
}

/** A token, and the permissions it was minted with. */
export interface MintedToken {
  token: string;
  permissions: Record<string, string>;
}

/**
 * A job's API token: {@link JOB_API_TOKEN_PERMISSIONS}, or without the optional ones when the installation has not
 * granted them. GitHub refuses to mint a token asking for a permission the installation lacks (422 "The permissions
 * requested are not granted to this installation"), so an installation that declined `checks` could not run at all:
 * that refusal is answered by minting again without the optional permissions. Asked for in full first: reading the
 * grant before every mint cost each run one more round trip to GitHub before its job could start, for an answer that
 * only mattered to installations that declined `checks` (which now pay the refused mint instead of the read).
 */
export async function mintJobApiToken(
  appApi: GitHubClient,
  installationId: number,
  repo: string,
  wanted: Readonly<Record<string, string>> = JOB_API_TOKEN_PERMISSIONS,
): Promise<MintedToken> {
  const asked = { ...wanted };
  try {
    return { token: await mintRepoToken(appApi, installationId, repo, asked), permissions: asked };
  } catch (error) {
    const without = withoutOptional(asked);
    if (!isNotGranted(error) || Object.keys(without).length === Object.keys(asked).length) throw error;
    return { token: await mintRepoToken(appApi, installationId, repo, without), permissions: without };
  }
}

/** `permissions` without the optional ones (the run goes on without them). */
function withoutOptional(permissions: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(permissions).filter(([name]) => !OPTIONAL_PERMISSIONS.includes(name)));
}

function isNotGranted(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  const message =
    (error as { githubMessage?: unknown } | null)?.githubMessage ?? classifyGitHubError(error)?.githubMessage ?? "";
  return status === 422 && /not granted/i.test(String(message));
}
