import { createYoungHandoff } from "./young-handoff.js";

/** A run job's two repository tokens: API writes (status, reactions, Check Run, pull request) and git. */
export interface JobTokens {
  apiToken: string;
  gitToken: string;
}

/** The job a token pair is minted for: the repository the tokens are limited to, and its installation. */
export interface TokenJob {
  jobId: string;
  installationId: number;
  repo: string;
}

/**
 * A run job's tokens minted while triage writes the requester's first feedback (👀, the queued comment, the Check
 * Run), so the job, once picked up in this process, does not wait one more round trip to GitHub before it can start.
 * Held only in this process's memory, never in the queue: the queue's store is on disk (or in Redis) and a token is
 * a secret. A pair is handed out once, and only while it is young (`maxAgeMs`, default 5 minutes): a job that waited
 * longer in the queue mints its own, so every run starts with at least 55 of the token's 60 minutes, as before.
 */
export interface JobTokenPrefetch {
  /** Start minting the job's tokens now; a second start for the same job replaces the first. */
  start(job: TokenJob): void;
  /**
   * The tokens started for this job, at most once, or null (none started, too old, or for another repository or
   * installation): the caller mints them then. The promise rejects when that mint failed.
   */
  take(job: TokenJob): Promise<JobTokens> | null;
  /** The tokens started for this job, without handing them out (the fetch into its mirror needs the git token). */
  pending(jobId: string): Promise<JobTokens> | null;
  /** Forget a job's tokens (it was not queued). */
  drop(jobId: string): void;
}

interface Entry {
  installationId: number;
  repo: string;
  tokens: Promise<JobTokens>;
}

export function createJobTokenPrefetch(
  mint: (installationId: number, repo: string) => Promise<JobTokens>,
  options: { now?: () => number; maxAgeMs?: number; maxEntries?: number } = {},
): JobTokenPrefetch {
  const held = createYoungHandoff<Entry>({ ...options, maxAgeMs: options.maxAgeMs ?? 5 * 60_000 });
  return {
    start(job) {
      const tokens = mint(job.installationId, job.repo);
      // A failed mint is the job's to report (it mints again when it starts), not an unhandled rejection here.
      tokens.catch(() => undefined);
      held.put(job.jobId, { installationId: job.installationId, repo: job.repo, tokens });
    },
    take(job) {
      const e = held.take(job.jobId, (e) => e.installationId === job.installationId && e.repo === job.repo);
      return e?.tokens ?? null;
    },
    pending(jobId) {
      return held.peek(jobId)?.tokens ?? null;
    },
    drop(jobId) {
      held.drop(jobId);
    },
  };
}
