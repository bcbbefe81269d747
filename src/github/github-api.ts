/** The slice of Octokit the app uses: generic `request` (typed loosely so tests can point it at nock or a fake). */
export interface GitHubApi {
  request(route: string, params?: Record<string, unknown>): Promise<{ status: number; data: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  auth?(options?: unknown): Promise<unknown>;
}
