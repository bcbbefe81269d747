import { JobStopped, type EngineJob, type ShutdownResult } from "./job-engine.js";
import type { RedisState } from "./redis-state.js";
import { settledWithin } from "./settled-within.js";

/**
 * Stops taking jobs, gives the running ones `graceMs`, then aborts them (reason shutdown: each goes back to the
 * queue); queues what this process recorded; closes every connection. Queued jobs stay in Redis for the other
 * workers (or the next start): none belongs to this process, so none is listed as waiting.
 */
export async function shutdownRedis<T>(s: RedisState<T>, graceMs: number): Promise<ShutdownResult<T>> {
  if (s.closed) return { requeued: [], waiting: [] };
  s.closed = true;
  const requeued = await closeWorker(s, graceMs);
  requeued.push(...s.stoppedLate.filter((j) => !requeued.includes(j)));
  clearInterval(s.timers.heartbeat);
  clearInterval(s.timers.sweeper);
  // What this process recorded goes into BullMQ before its connections close (or, if it cannot, a sweep does it).
  await Promise.all([s.intake.drain().catch(s.report), s.sweeping]);
  await s.redis.zrem(s.k("workers"), s.me).catch(s.report);
  await s.queue.close().catch(s.report);
  for (const c of s.connections) c.disconnect();
  return { requeued, waiting: [] };
}

/** Closes the worker (if any) within the grace periods; returns the jobs it cut off. */
async function closeWorker<T>(s: RedisState<T>, graceMs: number): Promise<EngineJob<T>[]> {
  const worker = s.worker;
  if (!worker) return [];
  const closing = worker.close();
  if (await settledWithin(closing, graceMs)) return [];
  const cut: EngineJob<T>[] = [];
  for (const l of s.local.values()) {
    l.controller.abort(new JobStopped("shutdown"));
    cut.push(l.job);
  }
  // A handler that ignores its signal must not hold the process forever: one more grace period.
  if (!(await settledWithin(closing, graceMs))) await worker.close(true);
  return cut;
}
