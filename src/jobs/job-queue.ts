import type { Job } from "./job.js";

/** Runs one job; must stop soon after `signal` aborts (cancel or shutdown). Thrown errors are reported, not retried. */
export type JobHandler<T> = (job: Job<T>, signal: AbortSignal) => Promise<void>;

/** Why a job did not finish normally during shutdown. */
export type CutOffReason = "aborted" | "dropped";

export interface JobQueue<T> {
  /** False when a job with this id was seen before (a redelivery) or the queue is closed: nothing is queued. */
  enqueue(job: Job<T>): boolean;
  /** Whether a job with this id was enqueued before (then `enqueue` would ignore it). */
  seen(id: string): boolean;
  /** Abort the running job for the key and drop its queued ones; returns how many were affected. */
  cancel(key: string): number;
  /** Resolves when nothing is queued or running (the queue stays open). */
  idle(): Promise<void>;
  /** Stop taking jobs and let everything already queued finish. */
  drain(): Promise<void>;
  /**
   * Stop taking jobs, drop queued ones, wait up to `timeoutMs` for running ones, then abort them. Returns the jobs
   * that were cut off (dropped or aborted) so the caller can tell their users.
   */
  shutdown(timeoutMs: number): Promise<Job<T>[]>;
  stats(): { running: number; queued: number };
}
