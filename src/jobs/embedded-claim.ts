import type { JobRecord } from "./embedded-store.js";
import type { EmbeddedWorker, LocalJob } from "./embedded-worker.js";
import type { EngineJob } from "./job-engine.js";

/** What one claim found: jobs this process starts now, and jobs given up because their worker died too often. */
export interface Claim<T> {
  claimed: { record: JobRecord<T>; job: EngineJob<T> }[];
  abandoned: EngineJob<T>[];
}

/** Renews this worker's heartbeat and leases; returns the local jobs whose key was cancelled from elsewhere. In a transaction. */
export function heartbeat<T>(w: EmbeddedWorker<T>): LocalJob<T>[] {
  const now = Date.now();
  w.store.beat(w.me, now);
  const cancelled: LocalJob<T>[] = [];
  for (const [seq, l] of w.local) {
    const r = w.store.record(seq);
    if (!r || r.owner !== w.me) continue;
    w.store.put({ ...r, leaseUntil: now + w.o.leaseMs });
    if (r.cancel) cancelled.push(l);
  }
  return cancelled;
}

/** Takes the jobs this process may start now, in order, and handles jobs whose worker died. In a transaction. */
export function claim<T>(w: EmbeddedWorker<T>): Claim<T> {
  const now = Date.now();
  const { live, abandoned } = recoverLapsed(w, now);
  if (w.stopping || !w.o.handler) return { claimed: [], abandoned };
  return { claimed: pickRunnable(w, live, now), abandoned };
}

/** Keys and installations busy now, counted from the running records. */
interface Busy {
  keys: Set<string>;
  perInstallation: Map<number, number>;
}

const occupy = (busy: Busy, r: JobRecord<unknown>) => {
  busy.keys.add(r.key);
  busy.perInstallation.set(r.installationId, (busy.perInstallation.get(r.installationId) ?? 0) + 1);
};

/**
 * Lease recovery: a running job whose lease ran out lost its worker (it died, or froze past the lease). It is queued
 * again, or given up past its attempts, or dropped if a user cancelled it. Returns the records still live, in order.
 */
function recoverLapsed<T>(w: EmbeddedWorker<T>, now: number): { live: JobRecord<T>[]; abandoned: EngineJob<T>[] } {
  const live: JobRecord<T>[] = [];
  const abandoned: EngineJob<T>[] = [];
  for (const r of w.store.records()) {
    const lapsed = r.state === "running" && (r.leaseUntil ?? 0) < now;
    if (lapsed && r.owner === w.me && w.local.has(r.seq)) {
      // Our own job, still running here: this process was too busy to renew in time. Renew, never run it twice.
      const renewed: JobRecord<T> = { ...r, leaseUntil: now + w.o.leaseMs };
      w.store.put(renewed);
      live.push(renewed);
    } else if (lapsed && r.cancel) {
      // Cancelled by a user before its worker died: nothing to re-run or report.
      w.store.remove(r.seq);
    } else if (lapsed && r.attempt >= w.o.attempts) {
      abandoned.push(w.store.asJob(r));
      w.store.remove(r.seq);
    } else if (lapsed) {
      const requeued: JobRecord<T> = { ...r, state: "queued", owner: undefined, leaseUntil: undefined, notBefore: now };
      w.store.put(requeued);
      live.push(requeued);
    } else live.push(r);
  }
  return { live, abandoned };
}

/** The queued jobs that may start here now: within this process's concurrency and each installation's limit. */
function pickRunnable<T>(w: EmbeddedWorker<T>, live: JobRecord<T>[], now: number): Claim<T>["claimed"] {
  const busy: Busy = { keys: new Set(), perInstallation: new Map() };
  for (const r of live) if (r.state === "running") occupy(busy, r);
  const claimed: Claim<T>["claimed"] = [];
  for (const r of live) {
    if (w.local.size + claimed.length >= w.o.concurrency) break;
    if (r.state !== "queued") continue;
    // The oldest queued job of a key blocks the later ones (order per key), whether it can start or not.
    if (busy.keys.has(r.key)) continue;
    busy.keys.add(r.key);
    if (r.notBefore > now || r.cancel) continue;
    if ((busy.perInstallation.get(r.installationId) ?? 0) >= w.o.perInstallation) continue;
    occupy(busy, r);
    const running: JobRecord<T> = {
      ...r,
      state: "running",
      owner: w.me,
      leaseUntil: now + w.o.leaseMs,
      attempt: r.attempt + 1,
    };
    w.store.put(running);
    claimed.push({ record: running, job: w.store.asJob(running) });
  }
  return claimed;
}
