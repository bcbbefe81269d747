import type { JobKind } from "./job.js";

// The abort reason is defined beside the worker process that raises it (exec/ never imports jobs/).
export { JobStopped, stopReason, type StopReason } from "../exec/job-stopped.js";

/** What the intake records: `id` is the delivery id (dedupe), `key` is `owner/repo#number` (one job at a time). */
export interface JobInput<T> {
  id: string;
  key: string;
  installationId: number;
  kind: JobKind;
  data: T;
}

/** A job as a handler or a hook sees it: `attempt` counts starts, 1 on the first run, more after a crash. */
export interface EngineJob<T> extends JobInput<T> {
  attempt: number;
}

/**
 * Runs one job. Expected failures are results (return normally, after telling the user); a throw means a crash and
 * is retried up to the engine's attempts. Must stop soon after `signal` aborts.
 */
export type JobHandler<T> = (job: EngineJob<T>, signal: AbortSignal) => Promise<void>;

/**
 * Why a job was given up: its worker died (lease or lock expired) more often than allowed, or its handler threw on
 * every attempt. The app tells the user the run was interrupted, offers `/aider retry`, completes its Check Run.
 */
export interface AbandonReason {
  kind: "worker-lost" | "crashed";
  message: string;
}

export interface CancelResult {
  /** Queued jobs of the key that were removed before they started. */
  dropped: number;
  /** Running jobs of the key whose signal was aborted (in whichever process runs them). */
  aborted: number;
}

export interface ShutdownResult<T> {
  /** Jobs this process was running and cut off after the grace period; put back in the queue to run again. */
  requeued: EngineJob<T>[];
  /** Jobs still waiting in the durable queue (kept, not dropped): they run when a worker next starts. */
  waiting: EngineJob<T>[];
}

export interface EngineStats {
  /** Jobs waiting (including ones delayed for a retry or behind a busy key), across the cluster. */
  queued: number;
  /** Jobs running, across the cluster. */
  running: number;
  /** Worker processes alive (heartbeating), across the cluster. */
  workers: number;
}

/** A template for the job a schedule enqueues on each tick; its id is `schedule:<scheduleId>:<tick ms>`. */
export type ScheduledJob<T> = Omit<JobInput<T>, "id">;

/**
 * A durable job queue. Every process may enqueue, cancel and schedule; a process given a handler also works.
 * Guarantees: dedupe by id within the retention window (across restarts), one job at a time per key across all
 * workers, at most `concurrency` jobs per worker process and `perInstallation` jobs per installation cluster-wide,
 * crash recovery (re-run, or `onAbandoned` past the attempts), schedules firing once per tick across replicas.
 */
export interface JobEngine<T> {
  /** False when the id was seen within the retention window (a redelivery) or the engine is shut down. */
  enqueue(job: JobInput<T>): Promise<boolean>;
  /** Abort the key's running job wherever it runs and drop its queued ones. */
  cancel(key: string): Promise<CancelResult>;
  /** Create or replace a cron schedule (5 or 6 fields) in an IANA time zone (default UTC). */
  upsertSchedule(id: string, cron: string, job: ScheduledJob<T>, timezone?: string): Promise<void>;
  removeSchedule(id: string): Promise<void>;
  stats(): Promise<EngineStats>;
  /**
   * Stop taking jobs, give running ones `graceMs` to finish, then abort them (`JobStopped("shutdown")`) and put them
   * back in the queue; close the store. Returns the jobs the app should tell their users about.
   */
  shutdown(graceMs: number): Promise<ShutdownResult<T>>;
}

/** Options both adapters share. Intervals are configurable so tests can use short ones. */
export interface EngineOptions<T> {
  /** Given: this process works jobs. Absent: enqueue-only (a webhook receiver). */
  handler?: JobHandler<T>;
  /** Jobs running at once in this process. */
  concurrency?: number;
  /** Jobs running at once per installation, cluster-wide. */
  perInstallation?: number;
  /** Starts allowed for a job that crashed or whose worker died, the first included. */
  attempts?: number;
  /** First retry delay after a crash; doubled each attempt. */
  backoffMs?: number;
  /** How long a seen id is remembered for dedupe. */
  retentionMs?: number;
  /** A running job whose worker stops renewing its lease for this long is taken as lost. */
  leaseMs?: number;
  /** Called once per job given up, in one process of the cluster. */
  onAbandoned?: (job: EngineJob<T>, reason: AbandonReason) => void | Promise<void>;
  /** Something went wrong inside the engine itself (store or connection); logged by the app. */
  onError?: (error: unknown) => void;
  /**
   * Resolves when this process may look for work. The embedded engine waits on it before each pump: a webhook
   * receiver passes its intake gate, so the queue is not read and rewritten while a wave of deliveries is being
   * answered (in a storm, claims and lease renewals between deliveries took a third of the main thread).
   */
  quiet?: () => Promise<void>;
}

export const ENGINE_DEFAULTS = {
  concurrency: 2,
  perInstallation: 2,
  attempts: 2,
  backoffMs: 5_000,
  retentionMs: 7 * 24 * 3600_000,
  leaseMs: 30_000,
} as const;

/** Options with the defaults filled in: what an engine's parts read. */
export type EngineSettings<T> = EngineOptions<T> & { -readonly [K in keyof typeof ENGINE_DEFAULTS]: number };

/** `options` without its undefined fields, so spreading it over defaults keeps the defaults. */
export function definedOnly<O extends object>(options: O): O {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as O;
}
