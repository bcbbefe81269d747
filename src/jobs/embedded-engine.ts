import { cancelKey } from "./embedded-cancel.js";
import { schedulePump } from "./embedded-pump.js";
import { armStoredSchedules, removeSchedule, upsertSchedule } from "./embedded-schedules.js";
import { shutdownEmbedded } from "./embedded-shutdown.js";
import { openEmbeddedWorker, type EmbeddedEngineOptions, type EmbeddedWorker } from "./embedded-worker.js";
import type { JobEngine } from "./job-engine.js";

export type { EmbeddedEngineOptions } from "./embedded-worker.js";

/**
 * The queue without Redis: an LMDB file holds the jobs, their leases, seen ids and schedules. LMDB commits are
 * durable and its write lock is shared by processes, so a restarted process (or a second one on the same disk)
 * picks up where the last left off. A worker renews the lease of each job it runs every `pollMs`; a lease that
 * ran out means the worker died, and the next claim re-queues the job or, past its attempts, abandons it.
 *
 * Its parts: embedded-worker (the state), embedded-claim (heartbeat, lease recovery, per-key order and limits),
 * embedded-run (a job's run and its recorded end), embedded-pump (the loop), embedded-schedules, embedded-cancel,
 * embedded-shutdown.
 */
export function createEmbeddedEngine<T>(options: EmbeddedEngineOptions<T>): JobEngine<T> {
  const w = openEmbeddedWorker(options);
  const prune = () => void w.store.prune(Date.now() - w.o.retentionMs, Date.now() - w.o.leaseMs).catch(w.report);
  prune();
  w.pruneTimer = setInterval(prune, 600_000);
  w.pruneTimer.unref();
  if (w.o.handler) {
    armStoredSchedules(w);
    schedulePump(w, 0);
  }
  return {
    enqueue: async (job) => {
      if (w.closed || w.stopping) return false;
      const added = await w.store.enqueue(job);
      if (added && w.o.handler) schedulePump(w, 0);
      return added;
    },
    cancel: (key) => cancelKey(w, key),
    upsertSchedule: (id, cron, job, timezone = "UTC") => upsertSchedule(w, id, cron, job, timezone),
    removeSchedule: (id) => removeSchedule(w, id),
    stats: () => Promise.resolve(embeddedStats(w)),
    shutdown: (graceMs) => shutdownEmbedded(w, graceMs),
  };
}

/** Reads only, outside a transaction: no write lock and no commit (runs poll this while triage is queued). */
function embeddedStats<T>(w: EmbeddedWorker<T>) {
  const all = w.store.records();
  return {
    queued: all.filter((r) => r.state === "queued").length,
    running: all.filter((r) => r.state === "running").length,
    workers: w.store.workersSince(Date.now() - w.o.leaseMs),
  };
}
