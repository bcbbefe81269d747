import type { GitHubClient, RepoRef } from "./github-client.js";
import { callGitHub, isGitHubFailure } from "./github-error.js";

/** A repository an installation can reach, as schedules need it. */
export interface InstalledRepository {
  owner: string;
  repo: string;
  defaultBranch: string;
  cloneUrl: string;
  htmlUrl: string;
  archived: boolean;
  /** GitHub's guess at the main language, when it has one. */
  language: string | null;
}

/** Who the App is: its slug, id, and the login/e-mail its commits and comments carry. */
export interface AppIdentity {
  slug: string;
  id: number;
  login: string;
  email: string;
}

/** The App's identity from `GET /app` (`appApi` authenticates as the App, i.e. Probot's `app.auth()`). */
export async function readAppIdentity(appApi: GitHubClient): Promise<AppIdentity> {
  const { data } = await callGitHub("Reading the App's own identity (GET /app)", () =>
    appApi.rest.apps.getAuthenticated(),
  );
  // GitHub documents `data` as nullable here; an App token always gets its App back, so null is a misconfiguration.
  if (!data)
    throw new Error("GitHub returned no App for the App's credentials (GET /app): check APP_ID and the private key.");
  const slug = data.slug ?? "aider-bot";
  return { slug, id: data.id, login: `${slug}[bot]`, email: `${data.id}+${slug}[bot]@users.noreply.github.com` };
}

/** Every installation of the App (all pages); `account` is the user/organisation login ("" for an enterprise). */
export async function listInstallations(appApi: GitHubClient): Promise<{ id: number; account: string }[]> {
  return callGitHub("Listing the App's installations", () =>
    appApi.paginate(appApi.rest.apps.listInstallations, { per_page: 100 }, (response) =>
      response.data.map((i) => ({ id: i.id, account: i.account && "login" in i.account ? i.account.login : "" })),
    ),
  );
}

/** Every repository one installation can reach (all pages; `api` is that installation's client). */
export async function listInstallationRepositories(api: GitHubClient): Promise<InstalledRepository[]> {
  const repos = await callGitHub("Listing the installation's repositories", () =>
    api.paginate(api.rest.apps.listReposAccessibleToInstallation, { per_page: 100 }),
  );
  return repos.map((r) => ({
    owner: r.owner.login,
    repo: r.name,
    defaultBranch: r.default_branch,
    cloneUrl: r.clone_url,
    htmlUrl: r.html_url,
    archived: r.archived,
    language: r.language ?? null,
  }));
}

/**
 * A file's text from a repository (default branch unless `ref`), or null when it does not exist. A directory at
 * that path is an error saying so.
 */
export async function readRepoFile(
  api: GitHubClient,
  args: RepoRef & { path: string; ref?: string },
): Promise<string | null> {
  const doing = `Reading ${args.path} from ${args.owner}/${args.repo}${args.ref ? `@${args.ref}` : ""}`;
  try {
    const { data } = await callGitHub(doing, () =>
      api.rest.repos.getContent({
        owner: args.owner,
        repo: args.repo,
        path: args.path,
        ...(args.ref ? { ref: args.ref } : {}),
        mediaType: { format: "raw" },
      }),
    );
    // With the raw media type GitHub answers the file's bytes: Octokit hands them over as a string when the
    // content type names a charset or text, as bytes otherwise. The typed response describes the JSON form, which
    // only comes back for a directory.
    const raw: unknown = data;
    if (typeof raw === "string") return raw;
    if (raw instanceof ArrayBuffer) return new TextDecoder().decode(raw);
    throw new Error(`${doing} failed: it is not a file (GitHub listed a directory or a symlink there).`);
  } catch (error) {
    if (isGitHubFailure(error, "not-found")) return null;
    throw error;
  }
}

/**
 * What an installation granted the App (`GET /app/installations/{id}`, with the App's JWT): permission name → `read`
 * or `write`. An owner may decline a permission the App asks for, or not yet have accepted a new one.
 */
export async function readInstallationPermissions(
  appApi: GitHubClient,
  installationId: number,
): Promise<Record<string, string>> {
  const { data } = await callGitHub(`Reading installation ${installationId}'s permissions`, () =>
    appApi.request("GET /app/installations/{installation_id}", { installation_id: installationId }),
  );
  const granted: Record<string, string> = {};
  for (const [name, level] of Object.entries(data.permissions ?? {}))
    if (typeof level === "string") granted[name] = level;
  return granted;
}

/** An installation token limited to `repositories` and `permissions`, minted with the App's JWT (`appApi`). */
export async function createInstallationToken(
  appApi: GitHubClient,
  args: { installationId: number; repositories: string[]; permissions: Readonly<Record<string, string>> },
): Promise<string> {
  const { data } = await callGitHub(`Minting a token for installation ${args.installationId}`, () =>
    appApi.request("POST /app/installations/{installation_id}/access_tokens", {
      installation_id: args.installationId,
      repositories: args.repositories,
      permissions: { ...args.permissions },
    }),
  );
  return data.token;
}

/** The numeric id of a GitHub user (or bot) login: an account-level call, bound to no repository. */
export async function getUserId(api: GitHubClient, username: string): Promise<number> {
  const { data } = await callGitHub(`Looking up the GitHub user ${username}`, () =>
    api.rest.users.getByUsername({ username }),
  );
  return data.id;
}
