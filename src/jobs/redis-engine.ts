import type { JobEngine } from "./job-engine.js";
import { cancelKey } from "./redis-cancel.js";
import { shutdownRedis } from "./redis-shutdown.js";
import { openRedisState, sweepOutbox, type RedisEngineOptions, type RedisState } from "./redis-state.js";
import { startRedisWorker } from "./redis-worker.js";

export type { RedisEngineOptions } from "./redis-state.js";

/**
 * The queue over Redis: BullMQ stores and leases the jobs (its lock and stalled-job check find jobs whose worker
 * died), and this adapter adds what open-source BullMQ lacks. One job at a time per key: every key has a FIFO list of
 * job ids in Redis and only its head may run (redis-key-order); a job that is not the head (or whose installation is
 * at its limit) goes back to the delayed set, and is promoted when the job before it ends (or a slot frees), or after
 * `busyRetryMs` if that wake-up was lost. Per-installation limit: a leased semaphore in Redis (redis-slots). Cancel:
 * a pub/sub message to every worker (redis-cancel). Intake: one script per batch of enqueues records each job
 * durably (dedupe mark, key list, outbox) before the answer, and the jobs go into BullMQ after it (redis-intake);
 * every process sweeps the outbox for records whose mover died. Schedules: BullMQ job schedulers armed once for the
 * cluster (redis-schedules), whose tick jobs enqueue the real job under a tick id (redis-processor).
 */
export function createRedisEngine<T>(options: RedisEngineOptions<T>): JobEngine<T> {
  const s = openRedisState(options);
  // Records left by a process that died before queueing them: looked for at start, then every `sweepMs`.
  sweepOutbox(s);
  s.timers.sweeper = setInterval(() => sweepOutbox(s), s.o.sweepMs);
  if (s.o.handler) startRedisWorker(s);
  return {
    enqueue: async (job) => (s.closed ? false : s.intake.enqueue(job)),
    cancel: (key) => cancelKey(s, key),
    upsertSchedule: (id, cron, template, timezone) =>
      s.schedules.upsert(id, cron, { scheduleId: id, template }, timezone),
    removeSchedule: (id) => s.schedules.remove(id),
    stats: () => redisStats(s),
    shutdown: (graceMs) => shutdownRedis(s, graceMs),
  };
}

/**
 * The outbox first, then BullMQ: a job is queued before its record is cleared, so one moving meanwhile is seen in one
 * or the other (or, for a moment, both), never in neither; `idle` must not see zero while one moves.
 */
async function redisStats<T>(s: RedisState<T>) {
  const recorded = await s.intake.outboxSize();
  const [counts, workers] = await Promise.all([
    s.queue.getJobCounts("waiting", "delayed", "prioritized", "active"),
    s.redis.zcount(s.k("workers"), Date.now() - s.o.leaseMs, "+inf"),
  ]);
  return {
    queued: (counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0) + recorded,
    running: counts.active ?? 0,
    workers,
  };
}
