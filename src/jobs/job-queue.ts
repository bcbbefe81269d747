/** A unit of queued work: `id` = X-GitHub-Delivery (dedupe), `key` = owner/repo#number (one at a time). */
export interface QueuedJob<T> {
  id: string;
  key: string;
  data: T;
}

export type JobHandler<T> = (job: QueuedJob<T>, signal: AbortSignal) => Promise<void>;

export interface JobQueue<T> {
  /** False when a job with this id was seen before (a redelivery): nothing is queued. */
  enqueue(job: QueuedJob<T>): boolean;
  /** Whether a job with this id was enqueued before (then `enqueue` would ignore it). */
  seen(id: string): boolean;
  /** Abort the running job for the key and drop its queued ones; returns how many were affected. */
  cancel(key: string): number;
  /** Resolves when nothing is queued or running. */
  idle(): Promise<void>;
  /** Stop taking jobs; wait up to `timeoutMs` for running ones, then abort them and report them. */
  shutdown(timeoutMs: number): Promise<QueuedJob<T>[]>;
  stats(): { running: number; queued: number };
}
