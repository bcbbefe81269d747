import { jsonField } from "./json-field.js";

/**
 * What kind of failure a GitHub answer was, as the rest of the app needs to tell them apart: a missing resource, a
 * permission the App was not granted, a rate limit (wait and retry), a request GitHub found invalid, credentials it
 * did not accept, or GitHub being down/unreachable.
 */
export type GitHubFailureKind =
  "not-found" | "forbidden" | "rate-limited" | "validation" | "unauthorized" | "unavailable" | "other";

/** A failed GitHub request in our terms (pure data read off Octokit's RequestError). */
export interface GitHubFailure {
  kind: GitHubFailureKind;
  status: number;
  /** GitHub's own `message` (capped), e.g. "Resource not accessible by integration". */
  githubMessage: string;
  /** For rate limits: seconds GitHub asked us to wait (`retry-after`), or until the quota resets. */
  retryAfterSeconds?: number;
}

/** A GitHub request that failed, with a message saying what we were doing, what happened and what to do. */
export class GitHubError extends Error {
  override readonly name = "GitHubError";
  readonly kind: GitHubFailureKind;
  /** The HTTP status (Octokit reports network failures as 500). Kept so `error.status` checks still work. */
  readonly status: number;
  readonly githubMessage: string;
  readonly retryAfterSeconds?: number;

  constructor(doing: string, failure: GitHubFailure, cause?: unknown) {
    super(`${doing} failed: ${explain(failure)}`, { cause });
    this.kind = failure.kind;
    this.status = failure.status;
    this.githubMessage = failure.githubMessage;
    if (failure.retryAfterSeconds !== undefined) this.retryAfterSeconds = failure.retryAfterSeconds;
  }
}

const MESSAGE_CAP = 300;

/**
 * The failure an Octokit request error stands for, or null when `error` is not an HTTP error (a bug in our code,
 * which must surface as it is). 403 is a rate limit when GitHub says so (`x-ratelimit-remaining: 0`, `retry-after`,
 * or a "rate limit" message), otherwise a missing permission.
 */
export function classifyGitHubError(error: unknown, nowMs = Date.now()): GitHubFailure | null {
  const status = jsonField(error, "status");
  if (typeof status !== "number") return classifyGraphqlError(error);
  const header = (name: string) => jsonField(error, "response", "headers", name);
  const raw = answerText(jsonField(error, "response", "data")) ?? (error instanceof Error ? error.message : "");
  const githubMessage = raw.length > MESSAGE_CAP ? `${raw.slice(0, MESSAGE_CAP)}…` : raw;
  const retryAfter = Number(header("retry-after"));
  const reset = Number(header("x-ratelimit-reset"));
  const exhausted = String(header("x-ratelimit-remaining") ?? "") === "0";
  const rateLimited =
    status === 429 || (status === 403 && (exhausted || Number.isFinite(retryAfter) || /rate limit/i.test(raw)));
  if (rateLimited) {
    const wait = Number.isFinite(retryAfter)
      ? retryAfter
      : Number.isFinite(reset)
        ? Math.max(0, Math.ceil(reset - nowMs / 1000))
        : undefined;
    return { kind: "rate-limited", status, githubMessage, ...(wait !== undefined ? { retryAfterSeconds: wait } : {}) };
  }
  const kind: GitHubFailureKind =
    status === 404 || status === 410
      ? "not-found"
      : status === 403
        ? "forbidden"
        : status === 401
          ? "unauthorized"
          : status === 422
            ? "validation"
            : status >= 500
              ? "unavailable"
              : "other";
  return { kind, status, githubMessage };
}

/**
 * GraphQL answers its errors with HTTP 200 and an `errors` list (Octokit throws them as a GraphqlResponseError, which
 * has no status): the first entry's `type` is the kind. The status is the REST answer's that means the same, so
 * callers reading `status` see one scale. Null when `error` carries no GraphQL errors.
 */
export function classifyGraphqlError(error: unknown): GitHubFailure | null {
  const errors = jsonField(error, "errors");
  if (!Array.isArray(errors) || errors.length === 0) return null;
  const first: unknown = errors[0];
  const type = jsonField(first, "type");
  const message = jsonField(first, "message");
  const kind = graphqlFailureKind(typeof type === "string" ? type : undefined);
  const raw = typeof message === "string" ? message : "GraphQL error";
  return {
    kind,
    status: GRAPHQL_STATUS[kind],
    githubMessage: raw.length > MESSAGE_CAP ? `${raw.slice(0, MESSAGE_CAP)}…` : raw,
  };
}

/** The kind a GraphQL error `type` stands for; an unknown type is GitHub refusing the request as it was made. */
export function graphqlFailureKind(type: string | undefined): GitHubFailureKind {
  switch (type) {
    case "FORBIDDEN":
      return "forbidden";
    case "NOT_FOUND":
      return "not-found";
    case "UNAUTHORIZED":
      return "unauthorized";
    case "RATE_LIMITED":
      return "rate-limited";
    default:
      return "validation";
  }
}

const GRAPHQL_STATUS: Record<GitHubFailureKind, number> = {
  "not-found": 404,
  forbidden: 403,
  "rate-limited": 403,
  validation: 422,
  unauthorized: 401,
  unavailable: 502,
  other: 200,
};

/** `error` as a {@link GitHubError} saying what we were `doing`; errors that are not HTTP errors are returned as they are. */
export function toGitHubError(error: unknown, doing: string): unknown {
  if (error instanceof GitHubError) return error;
  const failure = classifyGitHubError(error);
  return failure ? new GitHubError(doing, failure, error) : error;
}

/** Run one GitHub call; an HTTP failure is rethrown as a {@link GitHubError} naming `doing` ("Creating the pull request"). */
export async function callGitHub<T>(doing: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toGitHubError(error, doing);
  }
}

/** Whether `error` is a GitHub failure (of `kind`, when given), wrapped or still Octokit's own RequestError. */
export function isGitHubFailure(error: unknown, kind?: GitHubFailureKind): boolean {
  const failure = error instanceof GitHubError ? error : classifyGitHubError(error);
  return failure !== null && (kind === undefined || failure.kind === kind);
}

/**
 * GitHub's error body as one line: its `message` plus the detail of each entry of `errors` (a 422 says what was
 * invalid there, e.g. "Validation Failed: Draft pull requests are not supported in this repository."). Null when
 * the body has no message.
 */
function answerText(data: unknown): string | null {
  const message = jsonField(data, "message");
  if (typeof message !== "string") return null;
  const errors = jsonField(data, "errors");
  const details = (Array.isArray(errors) ? errors : [])
    .map((e: unknown) => {
      if (typeof e === "string") return e;
      const detail = jsonField(e, "message");
      return typeof detail === "string" ? detail : jsonField(e, "code");
    })
    .filter((d): d is string => typeof d === "string" && d !== "");
  return details.length ? `${message}: ${details.join("; ")}` : message;
}

function explain(f: GitHubFailure): string {
  const said = f.githubMessage ? ` (GitHub said: ${f.githubMessage})` : "";
  switch (f.kind) {
    case "not-found":
      return `GitHub answered ${f.status}: it does not exist, or the App cannot see it — check that the App is installed on this repository${said}.`;
    case "forbidden":
      return `GitHub refused it (403): the App lacks a permission this needs — an owner can grant it in the App's settings and accept it on the installation${said}.`;
    case "rate-limited":
      return `GitHub's rate limit was hit (${f.status}); ${f.retryAfterSeconds !== undefined ? `retry in ${f.retryAfterSeconds} s` : "retry later"}${said}.`;
    case "validation":
      return `GitHub rejected the request as invalid (422)${said}.`;
    case "unauthorized":
      return `GitHub did not accept the App's credentials (401): check APP_ID and the private key, and that the installation still exists${said}.`;
    case "unavailable":
      return `GitHub is unavailable or unreachable (${f.status}); try again later${said}.`;
    case "other":
      return `GitHub answered HTTP ${f.status}${said}.`;
  }
}
