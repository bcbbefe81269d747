import type { GitHubClient } from "./github-client.js";

export type { RepoRef } from "./github-client.js";

/**
 * @deprecated Temporary alias of {@link GitHubClient} for callers not yet converted (the app wiring and event
 * handling pass `context.octokit` / `app.auth(id)`); new code imports `GitHubClient` from `./github-client.js`.
 */
export type GitHubApi = GitHubClient;

/** The HTTP status of an Octokit request error, or undefined for anything else (network errors, bugs). */
export function httpStatus(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" ? status : undefined;
}
