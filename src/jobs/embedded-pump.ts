import { claim, heartbeat } from "./embedded-claim.js";
import { startJob } from "./embedded-run.js";
import { abandonLater, type EmbeddedWorker } from "./embedded-worker.js";
import { JobStopped } from "./job-engine.js";

/**
 * The embedded engine's loop: a pump renews this worker's heartbeat and leases, aborts the jobs cancelled from
 * elsewhere, recovers jobs whose worker died, and starts what may start. It runs every `pollMs`, and at once after an
 * enqueue or a job's end.
 */
async function pumpOnce<T>(w: EmbeddedWorker<T>): Promise<void> {
  try {
    await w.o.quiet?.();
    if (w.closed) return;
    // One transaction (one disk flush) for the heartbeat and the claim: a storm of short jobs pumps often.
    const { cancelled, claimed, abandoned } = await w.store.tx(() => ({ cancelled: heartbeat(w), ...claim(w) }));
    for (const l of cancelled) if (!l.controller.signal.aborted) l.controller.abort(new JobStopped("cancel"));
    for (const j of abandoned)
      abandonLater(w, j, {
        kind: "worker-lost",
        message: `its worker stopped renewing its lease ${j.attempt} time(s)`,
      });
    for (const c of claimed)
      startJob(w, c.record, c.job, () => {
        if (!w.stopping) schedulePump(w, 0);
      });
  } catch (error) {
    w.report(error);
  }
}

/**
 * Pumps now. One pump at a time (its claims must be in `local` before the next one counts them); a pump asked for
 * while one runs makes that one go round again.
 */
export function pump<T>(w: EmbeddedWorker<T>): Promise<void> {
  const p = w.pump;
  if (w.closed) return Promise.resolve();
  if (p.running) {
    p.again = true;
    return p.running;
  }
  p.running = (async () => {
    try {
      do {
        p.again = false;
        await pumpOnce(w);
      } while (p.again && !w.closed);
    } finally {
      p.running = null;
    }
  })();
  return p.running;
}

/**
 * Pumps in `ms`, then every `pollMs`. An earlier time already set is kept (a poll scheduled after a pump must not
 * push back the immediate pump an enqueue asked for meanwhile).
 */
export function schedulePump<T>(w: EmbeddedWorker<T>, ms: number): void {
  const p = w.pump;
  if (w.closed) return;
  const at = Date.now() + ms;
  if (p.timer !== undefined && at >= p.dueAt) return;
  clearTimeout(p.timer);
  p.dueAt = at;
  p.timer = setTimeout(() => {
    p.timer = undefined;
    p.dueAt = Infinity;
    void pump(w).finally(() => schedulePump(w, w.o.pollMs));
  }, ms);
}

/** Stops the loop: no pump starts after this; resolves once the one in flight (if any) has committed and started its jobs. */
export async function stopPumping<T>(w: EmbeddedWorker<T>): Promise<void> {
  w.closed = true;
  clearTimeout(w.pump.timer);
  await w.pump.running;
}
