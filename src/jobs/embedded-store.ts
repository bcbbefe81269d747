import { resolve } from "node:path";
import { open, type RootDatabase } from "lmdb";
import type { EngineJob, JobInput, ScheduledJob } from "./job-engine.js";
import { createTickBatch } from "./tick-batch.js";

/**
 * A job's bookkeeping. Its data (a whole webhook payload, a run's context) is kept apart, under `["d", seq]`: every
 * claim, heartbeat and stats call reads or rewrites the records, and with the data inside them a storm of 200
 * deliveries cost a decode of 200 payloads per claim.
 */
export interface JobRecord<T> extends Omit<EngineJob<T>, "data"> {
  seq: number;
  state: "queued" | "running";
  owner?: string;
  leaseUntil?: number;
  notBefore: number;
  cancel?: boolean;
}

type Key = (string | number)[];

/**
 * How the embedded queue lies in its LMDB file, and nothing about when jobs run (that is embedded-engine.ts and its parts):
 * `["j", seq]` job records, `["d", seq]` their data, `["seen", id]` delivery ids with the time first seen,
 * `["w", worker]` worker heartbeats, `["sched", id]` schedules, `["seq"]` the last sequence number.
 * Writes happen inside {@link EmbeddedStore.tx}.
 */
export interface EmbeddedStore<T> {
  /**
   * Run `fn` inside one write transaction; resolves with its result once committed. The callback runs on this
   * thread when LMDB's write thread holds the lock; the commit and its disk flush happen on that thread, never on
   * the event loop. (Synchronous transactions flushed on the event loop: in a storm, with the disk busy with
   * clones, one commit blocked every webhook answer for up to ~2 s.)
   */
  tx<R>(fn: () => R): Promise<R>;
  records(): JobRecord<T>[];
  record(seq: number): JobRecord<T> | undefined;
  put(record: JobRecord<T>): void;
  /** The record and its data. */
  remove(seq: number): void;
  /** The job with its data (records written before the data moved out still hold it themselves). */
  asJob(record: JobRecord<T>): EngineJob<T>;
  /**
   * Record a job unless its id was seen within `retentionMs`; resolves once committed. Enqueues arriving together (a
   * webhook storm) share one transaction instead of paying one disk flush each.
   */
  enqueue(job: JobInput<T>): Promise<boolean>;
  beat(worker: string, now: number): void;
  dropWorker(worker: string): void;
  /** Workers whose last heartbeat is at or after `since`. */
  workersSince(since: number): number;
  /** Forget delivery ids seen before `seenBefore` and heartbeats older than `workersBefore`. */
  prune(seenBefore: number, workersBefore: number): Promise<void>;
  schedules(): { id: string; cron: string; job: ScheduledJob<T>; timezone: string }[];
  putSchedule(id: string, cron: string, job: ScheduledJob<T>, timezone: string): Promise<void>;
  removeSchedule(id: string): Promise<void>;
  close(): Promise<void>;
}

/** The open LMDB handle of each store file in this process, and how many stores use it. */
const handles = new Map<string, { db: RootDatabase<unknown, Key>; users: number }>();

/**
 * This process's one handle on the file at `path`, shared by every store opened on it here; the last user closes
 * it. Opening a handle commits a transaction synchronously on the event loop, and an asynchronous transaction's
 * write thread holds LMDB's write lock while it waits for its callback to run on that same event loop: a second
 * handle opened at that moment waited for the lock forever, and the process hung (two engines on one file in a
 * test did, under load; test/fixtures/jobs/two-stores.ts does it every time).
 */
function acquireHandle(path: string): { db: RootDatabase<unknown, Key>; release(): Promise<void> } {
  const key = resolve(path);
  let handle = handles.get(key);
  if (!handle) handles.set(key, (handle = { db: open<unknown, Key>({ path: key, compression: false }), users: 0 }));
  handle.users++;
  const held = handle;
  let released = false;
  return {
    db: held.db,
    async release() {
      if (released) return;
      released = true;
      if (--held.users > 0) return;
      handles.delete(key);
      await held.db.close();
    },
  };
}

export function openEmbeddedStore<T>(path: string, retentionMs: number): EmbeddedStore<T> {
  const handle = acquireHandle(path);
  const db = handle.db;
  // Asynchronous transactions only: a synchronous one blocks the event loop for its commit.
  const tx = <R>(fn: () => R): Promise<R> => db.transaction(fn);
  const jobKey = (seq: number): Key => ["j", seq];
  const dataKey = (seq: number): Key => ["d", seq];
  const range = (prefix: string) => db.getRange({ start: [prefix], end: [prefix, "\uffff"] });

  const enqueueOne = (job: JobInput<T>): boolean => {
    const seen = db.get(["seen", job.id]) as number | undefined;
    if (seen !== undefined && seen > Date.now() - retentionMs) return false;
    const seq = ((db.get(["seq"]) as number | undefined) ?? 0) + 1;
    db.putSync(["seq"], seq);
    db.putSync(["seen", job.id], Date.now());
    const { data, ...rest } = job;
    const record: JobRecord<T> = { ...rest, attempt: 0, seq, state: "queued", notBefore: 0 };
    db.putSync(jobKey(seq), record);
    db.putSync(dataKey(seq), data);
    return true;
  };
  // The enqueues of one turn of the event loop (a burst of webhooks read together) share one transaction.
  const enqueue = createTickBatch<JobInput<T>, boolean>(async (jobs) =>
    (await tx(() => jobs.map(enqueueOne))).map((value) => ({ ok: true, value })),
  );

  return {
    tx,
    records: () =>
      [...db.getRange({ start: ["j"], end: ["j", Number.MAX_SAFE_INTEGER] })].map((e) => e.value as JobRecord<T>),
    record: (seq) => db.get(jobKey(seq)) as JobRecord<T> | undefined,
    put: (record) => void db.putSync(jobKey(record.seq), record),
    remove(seq) {
      db.removeSync(jobKey(seq));
      db.removeSync(dataKey(seq));
    },
    asJob(r) {
      const data = (db.get(dataKey(r.seq)) ?? (r as JobRecord<T> & { data?: T }).data) as T;
      return { id: r.id, key: r.key, installationId: r.installationId, kind: r.kind, data, attempt: r.attempt };
    },
    enqueue,
    beat: (worker, now) => void db.putSync(["w", worker], now),
    dropWorker: (worker) => void db.removeSync(["w", worker]),
    workersSince(since) {
      let n = 0;
      for (const { value } of range("w")) if ((value as number) >= since) n++;
      return n;
    },
    prune(seenBefore, workersBefore) {
      return tx(() => {
        for (const { key, value } of range("seen")) if ((value as number) < seenBefore) db.removeSync(key);
        for (const { key, value } of range("w")) if ((value as number) < workersBefore) db.removeSync(key);
      });
    },
    schedules: () =>
      [...range("sched")].map(({ key, value }) => {
        const s = value as { cron: string; job: ScheduledJob<T>; timezone?: string };
        return { id: String(key[1]), cron: s.cron, job: s.job, timezone: s.timezone ?? "UTC" };
      }),
    putSchedule: (id, cron, job, timezone) => tx(() => void db.putSync(["sched", id], { cron, job, timezone })),
    removeSchedule: (id) => tx(() => void db.removeSync(["sched", id])),
    close: () => handle.release(),
  };
}
