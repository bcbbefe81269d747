import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { Cron } from "croner";
import {
  definedOnly,
  ENGINE_DEFAULTS,
  JobStopped,
  stopReason,
  type AbandonReason,
  type EngineJob,
  type EngineOptions,
  type JobEngine,
  type ScheduledJob,
  type ShutdownResult,
} from "./job-engine.js";
import { openEmbeddedStore, type JobRecord } from "./embedded-store.js";

export interface EmbeddedEngineOptions<T> extends EngineOptions<T> {
  /** Directory of the LMDB environment (created if missing); every process sharing it shares the queue. */
  path: string;
  /** How often a worker looks for work, renews its leases and reads cancel requests. */
  pollMs?: number;
}

interface Local<T> {
  record: JobRecord<T>;
  job: EngineJob<T>;
  controller: AbortController;
  done: Promise<void>;
}

/**
 * The queue without Redis: an LMDB file holds the jobs, their leases, seen ids and schedules. LMDB commits are
 * durable and its write lock is shared by processes, so a restarted process (or a second one on the same disk)
 * picks up where the last left off. A worker renews the lease of each job it runs every `pollMs`; a lease that
 * ran out means the worker died, and the next claim re-queues the job or, past its attempts, abandons it.
 */
export function createEmbeddedEngine<T>(options: EmbeddedEngineOptions<T>): JobEngine<T> {
  const o = { ...ENGINE_DEFAULTS, pollMs: 200, ...definedOnly(options) };
  const store = openEmbeddedStore<T>(o.path, o.retentionMs);
  const me = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
  const local = new Map<number, Local<T>>();
  const crons = new Map<string, Cron>();
  let closed = false;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;

  const report = (error: unknown) => o.onError?.(error);
  const { tx, records, asJob, remove } = store;

  const abandon = (job: EngineJob<T>, reason: AbandonReason) => {
    Promise.resolve()
      .then(() => o.onAbandoned?.(job, reason))
      .catch(report);
  };

  /** Renews this worker's heartbeat and leases; returns the local jobs whose key was cancelled from elsewhere. In a transaction. */
  const heartbeat = (): Local<T>[] => {
    const now = Date.now();
    store.beat(me, now);
    const cancelled: Local<T>[] = [];
    for (const [seq, l] of local) {
      const r = store.record(seq);
      if (!r || r.owner !== me) continue;
      store.put({ ...r, leaseUntil: now + o.leaseMs });
      if (r.cancel) cancelled.push(l);
    }
    return cancelled;
  };

  /** Takes the jobs this process may start now, in order, and handles jobs whose worker died. In a transaction. */
  const claim = (): {
    claimed: { record: JobRecord<T>; job: EngineJob<T> }[];
    abandoned: EngineJob<T>[];
  } => {
    const now = Date.now();
    const all = records();
    const abandoned: EngineJob<T>[] = [];
    const busyKeys = new Set<string>();
    const perInstallation = new Map<number, number>();
    const live: JobRecord<T>[] = [];
    for (const r of all) {
      if (r.state === "running" && r.owner === me && local.has(r.seq) && (r.leaseUntil ?? 0) < now) {
        // Our own job, still running here: this process was too busy to renew in time. Renew, never run it twice.
        const renewed: JobRecord<T> = { ...r, leaseUntil: now + o.leaseMs };
        store.put(renewed);
        live.push(renewed);
        busyKeys.add(r.key);
        perInstallation.set(r.installationId, (perInstallation.get(r.installationId) ?? 0) + 1);
        continue;
      }
      if (r.state === "running" && (r.leaseUntil ?? 0) < now) {
        // Its worker stopped renewing the lease: it died (or froze past the lease).
        if (r.cancel) {
          // Cancelled by a user before its worker died: nothing to re-run or report.
          remove(r.seq);
          continue;
        }
        if (r.attempt >= o.attempts) {
          abandoned.push(asJob(r));
          remove(r.seq);
          continue;
        }
        const requeued: JobRecord<T> = {
          ...r,
          state: "queued",
          owner: undefined,
          leaseUntil: undefined,
          notBefore: now,
        };
        store.put(requeued);
        live.push(requeued);
        continue;
      }
      live.push(r);
      if (r.state === "running") {
        busyKeys.add(r.key);
        perInstallation.set(r.installationId, (perInstallation.get(r.installationId) ?? 0) + 1);
      }
    }
    const claimed: { record: JobRecord<T>; job: EngineJob<T> }[] = [];
    if (stopping || !o.handler) return { claimed, abandoned };
    for (const r of live) {
      if (local.size + claimed.length >= o.concurrency) break;
      if (r.state !== "queued") continue;
      // The oldest queued job of a key blocks the later ones (order per key), whether it can start or not.
      if (busyKeys.has(r.key)) continue;
      busyKeys.add(r.key);
      if (r.notBefore > now || r.cancel) continue;
      const n = perInstallation.get(r.installationId) ?? 0;
      if (n >= o.perInstallation) continue;
      perInstallation.set(r.installationId, n + 1);
      const running: JobRecord<T> = {
        ...r,
        state: "running",
        owner: me,
        leaseUntil: now + o.leaseMs,
        attempt: r.attempt + 1,
      };
      store.put(running);
      claimed.push({ record: running, job: asJob(running) });
    }
    return { claimed, abandoned };
  };

  /** Records the end of a local job: done, retried after a crash, abandoned, or put back by shutdown. */
  const finish = async (
    r: JobRecord<T>,
    job: EngineJob<T>,
    outcome: { error?: unknown; stopped: ReturnType<typeof stopReason> },
  ) => {
    const abandonedWith = await tx((): AbandonReason | null => {
      const current = store.record(r.seq);
      // Another process took the job over after our lease ran out: the outcome is theirs to record.
      if (!current || current.owner !== me) return null;
      if (outcome.stopped === "shutdown") {
        store.put({
          ...current,
          state: "queued",
          owner: undefined,
          leaseUntil: undefined,
          attempt: current.attempt - 1,
        });
        return null;
      }
      if (outcome.error !== undefined && outcome.stopped !== "cancel") {
        if (current.attempt < o.attempts) {
          const delay = o.backoffMs * 2 ** (current.attempt - 1);
          store.put({
            ...current,
            state: "queued",
            owner: undefined,
            leaseUntil: undefined,
            notBefore: Date.now() + delay,
          });
          return null;
        }
        remove(r.seq);
        return {
          kind: "crashed",
          message: outcome.error instanceof Error ? outcome.error.message : String(outcome.error),
        };
      }
      remove(r.seq);
      return null;
    });
    if (abandonedWith) abandon(job, abandonedWith);
  };

  const start = (r: JobRecord<T>, job: EngineJob<T>) => {
    const controller = new AbortController();
    const done = (async () => {
      let error: unknown;
      try {
        await o.handler!(job, controller.signal);
      } catch (e) {
        error = e ?? new Error("the job failed without an error");
      }
      try {
        await finish(r, job, { error, stopped: stopReason(controller.signal) });
      } catch (e) {
        report(e);
      }
      local.delete(r.seq);
      if (!stopping) schedulePump(0);
    })();
    local.set(r.seq, { record: r, job, controller, done });
  };

  const pumpOnce = async () => {
    try {
      await o.quiet?.();
      if (closed) return;
      // One transaction (one disk flush) for the heartbeat and the claim: a storm of short jobs pumps often.
      const { cancelled, claimed, abandoned } = await tx(() => ({
        cancelled: heartbeat(),
        ...claim(),
      }));
      for (const l of cancelled) if (!l.controller.signal.aborted) l.controller.abort(new JobStopped("cancel"));
      for (const j of abandoned)
        abandon(j, {
          kind: "worker-lost",
          message: `its worker stopped renewing its lease ${j.attempt} time(s)`,
        });
      for (const c of claimed) start(c.record, c.job);
    } catch (error) {
      report(error);
    }
  };

  // One pump at a time (its claims must be in `local` before the next one counts them); a pump asked for while one
  // runs makes that one go round again.
  let pumping: Promise<void> | null = null;
  let again = false;
  const pump = (): Promise<void> => {
    if (closed) return Promise.resolve();
    if (pumping) {
      again = true;
      return pumping;
    }
    pumping = (async () => {
      try {
        do {
          again = false;
          await pumpOnce();
        } while (again && !closed);
      } finally {
        pumping = null;
      }
    })();
    return pumping;
  };

  // The next pump's time: an earlier one already set is kept (a poll scheduled after a pump must not push back the
  // immediate pump an enqueue asked for meanwhile).
  let dueAt = Infinity;
  const schedulePump = (ms: number) => {
    if (closed) return;
    const at = Date.now() + ms;
    if (timer !== undefined && at >= dueAt) return;
    clearTimeout(timer);
    dueAt = at;
    timer = setTimeout(() => {
      timer = undefined;
      dueAt = Infinity;
      void pump().finally(() => schedulePump(o.pollMs));
    }, ms);
  };

  const pruneSeen = () => store.prune(Date.now() - o.retentionMs, Date.now() - o.leaseMs);

  const arm = (id: string, cron: string, job: ScheduledJob<T>, timezone: string) => {
    crons.get(id)?.stop();
    const c = new Cron(cron, { timezone, unref: true }, (self: Cron) => {
      // The tick's own time (not "now"), so every replica derives the same id and the seen set keeps one.
      const tick = Math.round((self.currentRun()?.getTime() ?? Date.now()) / 1000) * 1000;
      if (closed) return;
      store
        .enqueue({ ...job, id: `schedule:${id}:${tick}` })
        .then(() => schedulePump(0))
        .catch(report);
    });
    crons.set(id, c);
  };

  void pruneSeen().catch(report);
  if (o.handler) {
    for (const sched of store.schedules()) arm(sched.id, sched.cron, sched.job, sched.timezone);
    schedulePump(0);
  }
  const pruneTimer = setInterval(() => void pruneSeen().catch(report), 600_000);
  pruneTimer.unref();

  return {
    async enqueue(job) {
      if (closed || stopping) return false;
      const added = await store.enqueue(job);
      if (added && o.handler) schedulePump(0);
      return added;
    },
    async cancel(key) {
      const result = await tx(() => {
        let dropped = 0;
        let aborted = 0;
        for (const r of records()) {
          if (r.key !== key) continue;
          if (r.state === "queued") {
            remove(r.seq);
            dropped++;
          } else if (!r.cancel) {
            store.put({ ...r, cancel: true });
            aborted++;
          }
        }
        return { dropped, aborted };
      });
      // The owner reads the flag on its next heartbeat; when it is this process, act now.
      for (const l of local.values())
        if (l.record.key === key && !l.controller.signal.aborted) l.controller.abort(new JobStopped("cancel"));
      return result;
    },
    async upsertSchedule(id, cron, job, timezone = "UTC") {
      new Cron(cron, { paused: true, timezone }).stop(); // throws on a bad pattern or zone before anything is stored
      await store.putSchedule(id, cron, job, timezone);
      if (o.handler && !closed) arm(id, cron, job, timezone);
    },
    async removeSchedule(id) {
      await store.removeSchedule(id);
      crons.get(id)?.stop();
      crons.delete(id);
    },
    async stats() {
      // Reads only, outside a transaction: no write lock and no commit (runs poll this while triage is queued).
      const all = records();
      return {
        queued: all.filter((r) => r.state === "queued").length,
        running: all.filter((r) => r.state === "running").length,
        workers: store.workersSince(Date.now() - o.leaseMs),
      };
    },
    async shutdown(graceMs): Promise<ShutdownResult<T>> {
      if (closed) return { requeued: [], waiting: [] };
      stopping = true;
      for (const c of crons.values()) c.stop();
      const running = [...local.values()];
      // Keep renewing leases while we wait, or another process would take the jobs over as lost.
      const finished = await within(Promise.all(running.map((l) => l.done)), graceMs, () => void pump());
      const requeued: EngineJob<T>[] = [];
      if (!finished) {
        for (const l of local.values()) {
          l.controller.abort(new JobStopped("shutdown"));
          requeued.push(l.job);
        }
        // A handler that ignores its signal must not hold the process forever: one more grace period.
        await within(Promise.all(running.map((l) => l.done)), graceMs, () => void pump());
      }
      closed = true;
      clearTimeout(timer);
      clearInterval(pruneTimer);
      // A pump still in flight commits before the last transaction reads what is left.
      await pumping;
      const waiting = await tx(() => {
        store.dropWorker(me);
        const cut = new Set(requeued.map((j) => j.id));
        return records()
          .filter((r) => r.state === "queued" && !cut.has(r.id))
          .map(asJob);
      });
      await store.close();
      return { requeued, waiting };
    },
  };
}

/** Whether `promise` settled within `ms`, calling `tick` every 100 ms meanwhile. */
async function within(promise: Promise<unknown>, ms: number, tick: () => void): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const interval = setInterval(tick, 100);
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
    clearInterval(interval);
  }
}
