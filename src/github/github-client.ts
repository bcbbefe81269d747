import type { ProbotOctokit } from "probot";

/**
 * The slice of Probot's Octokit the GitHub gateway uses: typed `rest.*` endpoint methods, typed `request` routes,
 * `paginate` and `graphql` (review threads, closing issues and signed commits exist only in GraphQL).
 * `context.octokit` and `await app.auth(id)` are this type as they are, so callers pass them without casts, and every
 * request still goes through the plugins installed on that Octokit (the write guard that redacts secrets,
 * throttling, retries). Tests build a real `ProbotOctokit` and answer it with nock.
 */
export type GitHubClient = Pick<ProbotOctokit, "request" | "rest" | "paginate" | "graphql">;

/** An issue, PR or comment lives in one repository. */
export interface RepoRef {
  owner: string;
  repo: string;
}

/** A per-topic call's arguments without the repository, which the gateway binds (see repo-github.ts). */
export type RepoBound<F extends (api: GitHubClient, args: never) => unknown> = Omit<Parameters<F>[1], keyof RepoRef>;
