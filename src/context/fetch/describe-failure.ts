import { GitHubError } from "../../github/github-error.js";

/**
 * A failure's one-line description for a context note: what happened and what to do. The gateway's kinds decide:
 * a missing permission (or the 404 GitHub answers instead of it) points at the App's permissions, a rate limit says
 * when to retry, anything else gives its status or message.
 */
export function describeFailure(what: string, error: unknown): string {
  if (error instanceof GitHubError) {
    if (error.kind === "forbidden" || (error.kind === "not-found" && error.status === 404))
      return `${what} could not be read (HTTP ${error.status}: the App may lack the permission; see the README's "Permissions").`;
    if (error.kind === "rate-limited")
      return `${what} could not be read: ${rateLimitNote(error)}; the run went on without it.`;
    return `${what} could not be read (HTTP ${error.status}); the run went on without it.`;
  }
  return `${what} could not be read (${error instanceof Error ? error.message : "unknown error"}); the run went on without it.`;
}

/** "GitHub's rate limit was hit (retry in 30 s)" — what a reader of the note can do about it. */
export function rateLimitNote(error: GitHubError): string {
  const wait = error.retryAfterSeconds !== undefined ? `retry in ${error.retryAfterSeconds} s` : "retry later";
  return `GitHub's rate limit was hit (${wait})`;
}
