import type { EmbeddedWorker } from "./embedded-worker.js";
import { JobStopped, type CancelResult } from "./job-engine.js";

/**
 * Drops the key's queued jobs and flags its running one; the process running it reads the flag on its next
 * heartbeat (see embedded-claim), and when that is this process, its signal is aborted now.
 */
export async function cancelKey<T>(w: EmbeddedWorker<T>, key: string): Promise<CancelResult> {
  const result = await w.store.tx(() => {
    let dropped = 0;
    let aborted = 0;
    for (const r of w.store.records()) {
      if (r.key !== key) continue;
      if (r.state === "queued") {
        w.store.remove(r.seq);
        dropped++;
      } else if (!r.cancel) {
        w.store.put({ ...r, cancel: true });
        aborted++;
      }
    }
    return { dropped, aborted };
  });
  for (const l of w.local.values())
    if (l.record.key === key && !l.controller.signal.aborted) l.controller.abort(new JobStopped("cancel"));
  return result;
}
