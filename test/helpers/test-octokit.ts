import { ProbotOctokit } from "probot";

/** Where a default Octokit sends requests; nock answers there. */
export const GITHUB_API = "https://api.github.com";

/**
 * A real Probot Octokit (typed `rest.*`, `paginate`, hooks) for unit tests against nock, or against the fake GitHub
 * when given its `apiUrl`: a fixed token (`token`), no retries or throttling (a 5xx or 403 must reach the code under test at once), and no log output.
 */
export function testOctokit(baseUrl = GITHUB_API, token = "t"): ProbotOctokit {
  const quiet = () => undefined;
  return new ProbotOctokit({
    baseUrl,
    auth: { token },
    retry: { enabled: false },
    throttle: { enabled: false },
    log: { debug: quiet, info: quiet, warn: quiet, error: quiet },
  });
}

/** A `link` header pointing at the next page, as GitHub sends it. */
export function nextPage(path: string, page: number): { link: string } {
  return { link: `<${GITHUB_API}${path}?per_page=100&page=${page}>; rel="next"` };
}

/**
 * nock for a describe block: no real network, and a test fails when a mock it set up was never called (renovate's
 * http-mock rule). Call once inside `describe`.
 */
export function useStrictNock(nock: {
  disableNetConnect(): void;
  enableNetConnect(): void;
  pendingMocks(): string[];
  cleanAll(): void;
}): void {
  beforeEach(() => nock.disableNetConnect());
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    nock.enableNetConnect();
    expect(pending).toEqual([]);
  });
}
