import { completeCheckRun, startCheckRun } from "./check-run.js";
import {
  listCheckRunAnnotations,
  listCheckRunsForRef,
  readJobLog,
  type CheckAnnotationData,
  type CheckRunData,
} from "./checks-api.js";
import type { GitHubClient, RepoBound, RepoRef } from "./github-client.js";

/**
 * GitHub's Check Runs (the bot's own, and the repository's CI results) and Actions job logs through the gateway.
 * Every method may also throw the transport kinds listed on {@link RepoGitHub}.
 */
export interface RepoGitHubChecks {
  /**
   * An in-progress Check Run on `headSha`; its id, or null when the App has no `checks: write` (403 — a rate
   * limit is not that, and throws).
   * @throws {@link GitHubError} `validation` (no such commit), `rate-limited`.
   */
  startCheckRun(args: RepoBound<typeof startCheckRun>): Promise<number | null>;
  /**
   * Complete a Check Run with a title, summary and optional text (capped to GitHub's limits).
   * @throws {@link GitHubError} `not-found`, `forbidden`, `validation`.
   */
  completeCheckRun(args: RepoBound<typeof completeCheckRun>): Promise<void>;
  /**
   * The latest check runs of a commit, up to `maxPages` pages of 100.
   * @throws {@link GitHubError} `not-found`, `forbidden` (no `checks: read`), `validation` (a ref GitHub cannot resolve).
   */
  listCheckRunsForRef(ref: string, maxPages: number): Promise<{ items: CheckRunData[]; truncated: boolean }>;
  /**
   * The first `perPage` annotations of a check run.
   * @throws {@link GitHubError} `not-found`, `forbidden`.
   */
  listCheckRunAnnotations(checkRunId: number, perPage: number): Promise<CheckAnnotationData[]>;
  /**
   * An Actions job's whole log as text.
   * @throws {@link GitHubError} `forbidden` or `not-found` (no `actions: read`), `not-found` with status 410 (expired).
   */
  readJobLog(jobId: number): Promise<string>;
}

/** {@link RepoGitHubChecks} over `api`, bound to `where`. */
export function bindChecks(api: GitHubClient, where: RepoRef): RepoGitHubChecks {
  return {
    startCheckRun: (args) => startCheckRun(api, { ...where, ...args }),
    completeCheckRun: (args) => completeCheckRun(api, { ...where, ...args }),
    listCheckRunsForRef: (ref, maxPages) => listCheckRunsForRef(api, { ...where, ref, maxPages }),
    listCheckRunAnnotations: (checkRunId, perPage) => listCheckRunAnnotations(api, { ...where, checkRunId, perPage }),
    readJobLog: (jobId) => readJobLog(api, { ...where, jobId }),
  };
}
