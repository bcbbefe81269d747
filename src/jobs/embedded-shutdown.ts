import { pump, stopPumping } from "./embedded-pump.js";
import type { EmbeddedWorker } from "./embedded-worker.js";
import { JobStopped, type EngineJob, type ShutdownResult } from "./job-engine.js";
import { settledWithin } from "./settled-within.js";

/**
 * Stops taking jobs, gives the running ones `graceMs`, then aborts them (reason shutdown) and puts them back in the
 * queue; jobs a pump in flight claimed meanwhile are stopped before their handler and put back too. Lists the jobs
 * still queued, and closes the store.
 */
export async function shutdownEmbedded<T>(w: EmbeddedWorker<T>, graceMs: number): Promise<ShutdownResult<T>> {
  if (w.closed) return { requeued: [], waiting: [] };
  w.stopping = true;
  for (const c of w.crons.values()) c.stop();
  const requeued = await stopRunning(w, graceMs);
  clearInterval(w.pruneTimer);
  // A pump still in flight commits its claims (their jobs stopped at once, see startJob) before the last read.
  await stopPumping(w);
  // Their handlers never start: only their requeue's commit is waited for.
  const late = [...w.local.values()].filter((l) => w.stoppedLate.includes(l.job));
  await Promise.all(late.map((l) => l.done));
  requeued.push(...w.stoppedLate.filter((j) => !requeued.includes(j)));
  const waiting = await w.store.tx(() => {
    w.store.dropWorker(w.me);
    const cut = new Set(requeued.map((j) => j.id));
    return w.store
      .records()
      .filter((r) => r.state === "queued" && !cut.has(r.id))
      .map((r) => w.store.asJob(r));
  });
  await w.store.close();
  return { requeued, waiting };
}

/** Waits `graceMs` for the running jobs, then aborts them; returns the jobs it cut off. */
async function stopRunning<T>(w: EmbeddedWorker<T>, graceMs: number): Promise<EngineJob<T>[]> {
  const running = [...w.local.values()];
  const allDone = () => Promise.all(running.map((l) => l.done));
  // Keep renewing leases while we wait, or another process would take the jobs over as lost.
  const renew = () => void pump(w);
  if (await settledWithin(allDone(), graceMs, renew)) return [];
  const cut: EngineJob<T>[] = [];
  for (const l of w.local.values()) {
    l.controller.abort(new JobStopped("shutdown"));
    cut.push(l.job);
  }
  // A handler that ignores its signal must not hold the process forever: one more grace period.
  await settledWithin(allDone(), graceMs, renew);
  return cut;
}
