import type { GitHubClient, RepoRef } from "../../github/github-client.js";
import { httpStatus } from "../../github/github-api.js";

/** The GitHub calls the context fetchers make: REST `request` plus GraphQL (Octokit has both). */
export interface GitHubReader extends GitHubClient {
  graphql<T = unknown>(query: string, variables?: Record<string, unknown>): Promise<T>;
}

export type { RepoRef };

/**
 * Every page of a REST list (`per_page=100`, `page=1…`), up to `maxPages`: octokit's `paginate` needs the full
 * Octokit type, while this works over the small {@link GitHubClient} port the app passes around (and over nock).
 * Stops at the first short page. Returns whether the cap cut the list, so callers can say so.
 */
export async function listAll<T>(
  api: GitHubClient,
  route: string,
  params: Record<string, unknown>,
  maxPages = 10,
  pick?: (data: unknown) => T[],
): Promise<{ items: T[]; truncated: boolean }> {
  const items: T[] = [];
  for (let page = 1; page <= maxPages; page++) {
    const { data } = await api.request(route, { ...params, per_page: 100, page });
    const chunk = pick ? pick(data) : (data as T[]);
    items.push(...chunk);
    if (chunk.length < 100) return { items, truncated: false };
  }
  return { items, truncated: true };
}

/** A failure's one-line description for a context note: what happened and what to do. */
export function describeFailure(what: string, error: unknown): string {
  const status = httpStatus(error);
  if (status === 403 || status === 404)
    return `${what} could not be read (HTTP ${status}: the App may lack the permission; see the README's "Permissions").`;
  return `${what} could not be read (${status ? `HTTP ${status}` : ((error as Error)?.message ?? "unknown error")}); the run went on without it.`;
}
