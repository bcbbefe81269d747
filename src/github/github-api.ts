/** The slice of Octokit the app uses: generic `request` (typed loosely so tests can point it at nock or a fake). */
export interface GitHubApi {
  request(route: string, params?: Record<string, unknown>): Promise<{ status: number; data: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  auth?(options?: unknown): Promise<unknown>;
}

/** An issue, PR or comment lives in one repository. */
export interface RepoRef {
  owner: string;
  repo: string;
}

/** The HTTP status of an Octokit request error, or undefined for anything else (network errors, bugs). */
export function httpStatus(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" ? status : undefined;
}
