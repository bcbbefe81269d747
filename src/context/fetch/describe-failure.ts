import { httpStatus } from "../../github/github-api.js";

/** A failure's one-line description for a context note: what happened and what to do. */
export function describeFailure(what: string, error: unknown): string {
  const status = httpStatus(error);
  if (status === 403 || status === 404)
    return `${what} could not be read (HTTP ${status}: the App may lack the permission; see the README's "Permissions").`;
  return `${what} could not be read (${status ? `HTTP ${status}` : error instanceof Error ? error.message : "unknown error"}); the run went on without it.`;
}
