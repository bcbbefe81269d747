import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Cron } from "croner";
import { openEmbeddedStore, type EmbeddedStore, type JobRecord } from "./embedded-store.js";
import type { EngineJob, EngineOptions, EngineSettings } from "./job-engine.js";
import { ENGINE_DEFAULTS, definedOnly } from "./job-engine.js";

export interface EmbeddedEngineOptions<T> extends EngineOptions<T> {
  /** Directory of the LMDB environment (created if missing); every process sharing it shares the queue. */
  path: string;
  /** How often a worker looks for work, renews its leases and reads cancel requests. */
  pollMs?: number;
}

/** A job this process runs. */
export interface LocalJob<T> {
  record: JobRecord<T>;
  job: EngineJob<T>;
  controller: AbortController;
  /** Settles once the job's end is recorded (or its recording failed and was reported). */
  done: Promise<void>;
}

/**
 * One embedded engine's state, shared by its parts (claim, run, pump, schedules, cancel, shutdown). `stopping`: a
 * shutdown began (claim nothing more); `closed`: it let go of the store (pump nothing more).
 */
export interface EmbeddedWorker<T> {
  o: EngineSettings<T> & { path: string; pollMs: number };
  store: EmbeddedStore<T>;
  /** This process's name as a lease owner: host, pid and a random part (a pid is reused after a restart). */
  me: string;
  local: Map<number, LocalJob<T>>;
  crons: Map<string, Cron>;
  /** Jobs claimed by a pump in flight when a shutdown began: stopped before their handler, reported requeued. */
  stoppedLate: EngineJob<T>[];
  stopping: boolean;
  closed: boolean;
  /** Forgets seen ids past the retention and workers long silent, every 10 minutes. */
  pruneTimer?: NodeJS.Timeout;
  pump: { running: Promise<void> | null; again: boolean; timer?: NodeJS.Timeout; dueAt: number };
  report: (error: unknown) => void;
}

/** Opens the store and the state of an engine working on it. */
export function openEmbeddedWorker<T>(options: EmbeddedEngineOptions<T>): EmbeddedWorker<T> {
  const o = { ...ENGINE_DEFAULTS, pollMs: 200, ...definedOnly(options) };
  return {
    o,
    store: openEmbeddedStore<T>(o.path, o.retentionMs),
    me: `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`,
    local: new Map(),
    crons: new Map(),
    stoppedLate: [],
    stopping: false,
    closed: false,
    pump: { running: null, again: false, dueAt: Infinity },
    report: (error) => o.onError?.(error),
  };
}

/** Calls the abandon hook later, its failure reported (the store's transaction must not wait on the app). */
export function abandonLater<T>(
  w: EmbeddedWorker<T>,
  job: EngineJob<T>,
  reason: { kind: "worker-lost" | "crashed"; message: string },
): void {
  Promise.resolve()
    .then(() => w.o.onAbandoned?.(job, reason))
    .catch(w.report);
}
