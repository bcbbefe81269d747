import type { Redis } from "ioredis";
import type { JobInput } from "./job-engine.js";
import { createTickBatch, type Settled } from "./tick-batch.js";

/**
 * An outbox record older than this has lost its mover (the process that wrote it died, or its add kept failing):
 * any process's sweep queues it. A mover finishes within a second or so of the record; queueing a job twice is
 * harmless (BullMQ adds an id once, and a job off its key's list never runs), so this only saves repeated work.
 */
export const OUTBOX_STALE_MS = 5_000;

/** A pending mark written by an earlier version (`p:<time>`) older than this belongs to an enqueue that died. */
export const PENDING_STALE_MS = 60_000;

/** Jobs per BullMQ `addBulk` when moving out of the outbox: a bulk add holds Redis ~0.3 ms per job. */
const MOVE_CHUNK = 50;

/**
 * Records a batch of jobs, in order. KEYS: the outbox hash, the outbox's time index, then per job its id's seen mark
 * and its key's list. ARGV: now, retention ms, stale-before time (for old pending marks), then per job its BullMQ id
 * and its JSON. Returns per job 1: recorded (marked seen, listed on its key, stored in the outbox); 0: a duplicate
 * (seen within the retention, the same batch's earlier copy included). A pending mark of an earlier version
 * (`p:<time>`) still being worked on is a duplicate; one gone stale is taken over (its list entry moves to the end).
 */
const RECORD = `
local out = {}
for i = 1, (#KEYS - 2) / 2 do
  local seen, list = KEYS[1 + 2 * i], KEYS[2 + 2 * i]
  local id, json = ARGV[2 + 2 * i], ARGV[3 + 2 * i]
  local v = redis.call('get', seen)
  if v and (string.sub(v, 1, 2) ~= 'p:' or tonumber(string.sub(v, 3)) >= tonumber(ARGV[3])) then
    out[i] = 0
  else
    if v then redis.call('lrem', list, 0, id) end
    redis.call('set', seen, ARGV[1], 'PX', ARGV[2])
    redis.call('rpush', list, id)
    redis.call('hset', KEYS[1], id, json)
    redis.call('zadd', KEYS[2], ARGV[1], id)
    out[i] = 1
  end
end
return out
`;

export interface RedisIntakeOptions<T> {
  /** Our connection (auto-pipelined), for the dedupe marks, key lists and the outbox. */
  redis: Redis;
  /** Our key for the parts (`seen`, id), (`key`, job key), (`outbox`) and (`outbox-at`). */
  key: (...parts: string[]) => string;
  /** The job's id in BullMQ (and in its key's list and the outbox). */
  bullId: (id: string) => string;
  retentionMs: number;
  /** Adds jobs to BullMQ under their {@link RedisIntakeOptions.bullId}: many in one call, or one. */
  queue: { addBulk(jobs: JobInput<T>[]): Promise<unknown>; add(job: JobInput<T>): Promise<unknown> };
  /** Resolves when this process may do background work (a receiver's intake gate): moves wait on it. */
  quiet?: () => Promise<void>;
  /** Age at which a sweep takes a record over (default {@link OUTBOX_STALE_MS}). */
  staleMs?: number;
  /** A move or a sweep failed (the records stay in the outbox for the next sweep). */
  report: (error: unknown) => void;
}

export interface RedisIntake<T> {
  /** True: recorded (queued soon, durably); false: a duplicate. Rejects when the record could not be written. */
  enqueue(job: JobInput<T>): Promise<boolean>;
  /** Queues the outbox records older than `staleMs`: those whose mover died. Returns how many. */
  sweep(): Promise<number>;
  /** Resolves once this process's moves under way are done (before closing its connections). */
  drain(): Promise<void>;
  /** Records in the outbox, across the cluster (recorded, not yet queued). */
  outboxSize(): Promise<number>;
  /** Whether this BullMQ id has an outbox record (recorded, not yet queued). */
  inOutbox(bullId: string): Promise<boolean>;
}

/**
 * The Redis engine's enqueue. A delivery is answered once it is recorded durably, in one script per turn of the
 * event loop: its dedupe mark, its place on its key's list and the job itself in an outbox (all in Redis, as durable
 * as BullMQ's own queue). Moving the jobs into BullMQ comes after the answers, once the receiver's intake is quiet.
 *
 * Why: with BullMQ's `addBulk` on the ack path, a storm's acks waited on it (50–70 ms for a burst of ~100 jobs, each
 * add a Lua script of its own), and the next burst's dedupe script queued behind it inside Redis.
 *
 * Nothing is lost if the process dies after the record: every process of the engine sweeps the outbox and queues the
 * records whose mover is gone. A job queued twice runs once: BullMQ adds an id once, and a job that already ran is
 * off its key's list, which a worker checks before running it.
 */
export function createRedisIntake<T>(o: RedisIntakeOptions<T>): RedisIntake<T> {
  const s: IntakeState<T> = { o, outbox: o.key("outbox"), outboxAt: o.key("outbox-at"), waiting: [], moving: null };
  return {
    enqueue: createTickBatch<JobInput<T>, boolean>((jobs) => recordBatch(s, jobs)),
    sweep: () => sweepStale(s),
    async drain() {
      while (s.moving) await s.moving;
    },
    outboxSize: () => o.redis.hlen(s.outbox),
    inOutbox: async (id) => (await o.redis.hexists(s.outbox, id)) === 1,
  };
}

/** One intake's state: its outbox keys, the jobs it recorded and has yet to queue, and the move under way. */
interface IntakeState<T> {
  o: RedisIntakeOptions<T>;
  outbox: string;
  outboxAt: string;
  waiting: JobInput<T>[];
  moving: Promise<void> | null;
}

/** Records one turn's jobs in one script; each job's answer says whether it was new. */
async function recordBatch<T>(s: IntakeState<T>, jobs: JobInput<T>[]): Promise<Settled<boolean>[]> {
  const now = Date.now();
  const outcomes: Settled<boolean>[] = jobs.map(() => ({ ok: true, value: false }));
  // A job that cannot be stored as JSON fails alone, before the batch is written.
  const stored: { job: JobInput<T>; i: number; json: string }[] = [];
  jobs.forEach((job, i) => {
    try {
      stored.push({ job, i, json: JSON.stringify(job) });
    } catch (error) {
      outcomes[i] = { ok: false, error };
    }
  });
  if (stored.length === 0) return outcomes;
  const keys = [
    s.outbox,
    s.outboxAt,
    ...stored.flatMap(({ job }) => [s.o.key("seen", job.id), s.o.key("key", job.key)]),
  ];
  const args = stored.flatMap(({ job, json }) => [s.o.bullId(job.id), json]);
  const recorded = (await s.o.redis.eval(
    RECORD,
    keys.length,
    ...keys,
    now,
    s.o.retentionMs,
    now - PENDING_STALE_MS,
    ...args,
  )) as number[];
  stored.forEach(({ job, i }, n) => {
    if (recorded[n] !== 1) return;
    outcomes[i] = { ok: true, value: true };
    s.waiting.push(job);
  });
  if (s.waiting.length > 0) startMoving(s);
  return outcomes;
}

/** Moves what this process recorded, a chunk at a time, each once the intake is quiet. */
function startMoving<T>(s: IntakeState<T>): void {
  s.moving ??= (async () => {
    while (s.waiting.length > 0) {
      await s.o.quiet?.();
      await move(s, s.waiting.splice(0, MOVE_CHUNK)).catch(s.o.report);
    }
  })().finally(() => {
    s.moving = null;
    if (s.waiting.length > 0) startMoving(s);
  });
}

/** Queues jobs in BullMQ and clears their outbox records; a job whose add failed keeps its record. */
async function move<T>(s: IntakeState<T>, jobs: JobInput<T>[]): Promise<void> {
  const added = await addAll(s, jobs);
  const done = jobs.filter((_, i) => added[i]?.ok).map((job) => s.o.bullId(job.id));
  const failed = added.find((a) => !a.ok);
  await clear(s, done);
  if (failed && !failed.ok) s.o.report(failed.error);
}

/** Adds jobs; one outcome each. A bad job fails a whole bulk: then each is added on its own, so only it fails. */
async function addAll<T>(s: IntakeState<T>, jobs: JobInput<T>[]): Promise<Settled<true>[]> {
  try {
    await s.o.queue.addBulk(jobs);
    return jobs.map(() => ({ ok: true, value: true }));
  } catch {
    return Promise.all(
      jobs.map((job) =>
        s.o.queue.add(job).then(
          (): Settled<true> => ({ ok: true, value: true }),
          (error: unknown): Settled<true> => ({ ok: false, error }),
        ),
      ),
    );
  }
}

/** Removes outbox records (hash entry and time entry together). */
async function clear<T>(s: IntakeState<T>, ids: string[]): Promise<void> {
  if (ids.length > 0)
    await s.o.redis
      .multi()
      .hdel(s.outbox, ...ids)
      .zrem(s.outboxAt, ...ids)
      .exec();
}

/** Queues the outbox records older than the stale age (their mover died); drops records that are not JSON. */
async function sweepStale<T>(s: IntakeState<T>): Promise<number> {
  const before = Date.now() - (s.o.staleMs ?? OUTBOX_STALE_MS);
  const stale = await s.o.redis.zrangebyscore(s.outboxAt, "-inf", before, "LIMIT", 0, 500);
  if (stale.length === 0) return 0;
  const values = await s.o.redis.hmget(s.outbox, ...stale);
  const jobs: JobInput<T>[] = [];
  const unreadable: string[] = [];
  stale.forEach((id, i) => {
    const json = values[i];
    try {
      if (json) jobs.push(JSON.parse(json) as JobInput<T>);
      else unreadable.push(id); // moved meanwhile (its time entry is the only leftover)
    } catch {
      unreadable.push(id);
      s.o.report(new Error(`the outbox record ${id} is not valid JSON: dropped`));
    }
  });
  await clear(s, unreadable);
  for (let i = 0; i < jobs.length; i += MOVE_CHUNK) await move(s, jobs.slice(i, i + MOVE_CHUNK));
  return jobs.length;
}
