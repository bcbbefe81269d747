import type { JobRecord } from "./embedded-store.js";
import { abandonLater, type EmbeddedWorker } from "./embedded-worker.js";
import { JobStopped, stopReason, type AbandonReason, type EngineJob, type StopReason } from "./job-engine.js";

/**
 * Runs a claimed job in this process; `onEnd` is called once its end is recorded. A job claimed by a pump that was in
 * flight when a shutdown began is stopped before its handler starts and reported requeued (as the Redis engine does),
 * so the shutdown neither waits on it nor leaves it to lease recovery.
 */
export function startJob<T>(w: EmbeddedWorker<T>, r: JobRecord<T>, job: EngineJob<T>, onEnd: () => void): void {
  const controller = new AbortController();
  if (w.stopping) {
    controller.abort(new JobStopped("shutdown"));
    w.stoppedLate.push(job);
  }
  const done = (async () => {
    let error: unknown;
    try {
      if (!controller.signal.aborted && w.o.handler) await w.o.handler(job, controller.signal);
    } catch (e) {
      error = e ?? new Error("the job failed without an error");
    }
    try {
      await finishJob(w, r, job, { error, stopped: stopReason(controller.signal) });
    } catch (e) {
      w.report(e);
    }
    w.local.delete(r.seq);
    onEnd();
  })();
  w.local.set(r.seq, { record: r, job, controller, done });
}

/** Records the end of a local job: done, retried after a crash, abandoned, or put back by shutdown. */
async function finishJob<T>(
  w: EmbeddedWorker<T>,
  r: JobRecord<T>,
  job: EngineJob<T>,
  outcome: { error?: unknown; stopped: StopReason | null },
): Promise<void> {
  const abandonedWith = await w.store.tx((): AbandonReason | null => {
    const current = w.store.record(r.seq);
    // Another process took the job over after our lease ran out: the outcome is theirs to record.
    if (!current || current.owner !== w.me) return null;
    const requeue = { ...current, state: "queued" as const, owner: undefined, leaseUntil: undefined };
    if (outcome.stopped === "shutdown") {
      w.store.put({ ...requeue, attempt: current.attempt - 1 });
      return null;
    }
    if (outcome.error !== undefined && outcome.stopped !== "cancel") {
      if (current.attempt < w.o.attempts) {
        w.store.put({ ...requeue, notBefore: Date.now() + w.o.backoffMs * 2 ** (current.attempt - 1) });
        return null;
      }
      w.store.remove(r.seq);
      const message = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
      return { kind: "crashed", message };
    }
    w.store.remove(r.seq);
    return null;
  });
  if (abandonedWith) abandonLater(w, job, abandonedWith);
}
