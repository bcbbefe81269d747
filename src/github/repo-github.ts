import type { GitHubClient, RepoRef } from "./github-client.js";
import { toGitHubError } from "./github-error.js";
import { bindChecks, type RepoGitHubChecks } from "./repo-github-checks.js";
import { bindCommits, type RepoGitHubCommits } from "./repo-github-commits.js";
import { bindConversation, type RepoGitHubConversation } from "./repo-github-conversation.js";
import { bindPulls, type RepoGitHubPulls } from "./repo-github-pulls.js";
import { bindRepository, type RepoGitHubRepository } from "./repo-github-repository.js";

// The types of the gateway's arguments and answers that callers name themselves (a run's port, a job's reaction).
export type { ApiCommitRequest, ApiCommitResult } from "./commit-on-branch.js";
export type { ReactionTarget } from "./reactions.js";

/**
 * Everything the app does on ONE repository's GitHub, bound to it once: callers name an issue, a branch or a
 * comment, never the owner and repository again (release-please's `GitHub.create({ owner, repo })` is the model).
 * Built with {@link RepoGitHub.create}; installation-level calls (tokens, the App's installations) are not here
 * (src/github/installations.ts).
 *
 * Errors: every method fails with a {@link GitHubError} when GitHub answered with an error (a REST status or
 * GraphQL `errors`), mapped once by `classifyGitHubError` (src/github/github-error.ts). Any method may throw the
 * transport kinds — `rate-limited` (wait `retryAfterSeconds`), `unauthorized` (the installation's token was not
 * accepted), `unavailable` (5xx or unreachable) and `other` (an unexpected status) — besides the kinds its own
 * documentation lists. An error that is not GitHub's (a bug, an aborted request) is thrown as it is.
 */
export type RepoGitHub = RepoGitHubRepository &
  RepoGitHubConversation &
  RepoGitHubPulls &
  RepoGitHubChecks &
  RepoGitHubCommits & {
    readonly owner: string;
    readonly repo: string;
    /** `owner/repo`, for messages and logs. */
    readonly fullName: string;
    /** The same client bound to another repository (a fork's branch that an API commit goes to). */
    forRepository(where: RepoRef): RepoGitHub;
  };

/** How the gateway is made: `RepoGitHub.create({ octokit: context.octokit, owner, repo })`. */
export const RepoGitHub = {
  /**
   * The gateway of `owner/repo` over `octokit` (Probot's installation client, or any {@link GitHubClient}: its
   * plugins — the write guard, throttling, retries — apply to every request).
   */
  create(args: RepoRef & { octokit: GitHubClient }): RepoGitHub {
    const where = { owner: args.owner, repo: args.repo };
    const api = args.octokit;
    const fullName = `${where.owner}/${where.repo}`;
    const methods = {
      ...bindRepository(api, where),
      ...bindConversation(api, where),
      ...bindPulls(api, where),
      ...bindChecks(api, where),
      ...bindCommits(api, where),
    };
    return {
      ...mapFailures(methods, fullName),
      owner: where.owner,
      repo: where.repo,
      fullName,
      forRepository: (other) => RepoGitHub.create({ ...other, octokit: api }),
    };
  },
};

/**
 * Every method of `methods` with its failures as {@link GitHubError}s, in this one place: an error the method already
 * mapped (with the precise "what we were doing") passes unchanged, so nothing is mapped twice, and an HTTP or GraphQL
 * error that escaped a method is mapped here rather than reaching a caller raw.
 */
function mapFailures<T extends Record<string, unknown>>(methods: T, fullName: string): T {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(methods)) {
    if (typeof value !== "function") {
      out[name] = value;
      continue;
    }
    const doing = `Calling GitHub (${name}) on ${fullName}`;
    out[name] = (...args: unknown[]): unknown => {
      const result: unknown = value(...args);
      return result instanceof Promise
        ? result.catch((error: unknown) => {
            throw toGitHubError(error, doing);
          })
        : result;
    };
  }
  // The loop keeps every key and wraps each function with one of the same parameters and result.
  return out as T;
}
