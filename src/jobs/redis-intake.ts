import type { Redis } from "ioredis";
import type { JobInput } from "./job-engine.js";
import { createTickBatch, type Settled } from "./tick-batch.js";

/** A pending dedupe mark older than this belongs to an enqueue whose process died (an enqueue takes milliseconds). */
export const PENDING_STALE_MS = 60_000;

/**
 * Marks a batch of ids pending, in order. KEYS: per job, its id's seen mark then its key's list. ARGV: now, retention
 * ms, stale-before time, then per job its BullMQ id. Returns per job 1: go on and add it; 0: a duplicate (done, or
 * pending in a live enqueue, the same batch's earlier copy included). A done mark is a plain time, a pending one
 * `p:<time>`; a pending mark gone stale is taken over (its key's list entry moves to the end).
 */
const MARK_PENDING = `
local out = {}
for i = 1, #KEYS / 2 do
  local seen, list, id = KEYS[2 * i - 1], KEYS[2 * i], ARGV[3 + i]
  local v = redis.call('get', seen)
  if v and (string.sub(v, 1, 2) ~= 'p:' or tonumber(string.sub(v, 3)) >= tonumber(ARGV[3])) then
    out[i] = 0
  else
    if v then redis.call('lrem', list, 0, id) end
    redis.call('set', seen, 'p:' .. ARGV[1], 'PX', ARGV[2])
    redis.call('rpush', list, id)
    out[i] = 1
  end
end
return out
`;

/** Turns pending marks into done ones (a mark that expired meanwhile stays gone). KEYS: seen marks. ARGV: now, retention ms. */
const MARK_DONE = `
for i = 1, #KEYS do redis.call('set', KEYS[i], ARGV[1], 'PX', ARGV[2], 'XX') end
return #KEYS
`;

export interface RedisIntakeOptions<T> {
  /** Our connection (auto-pipelined), for the dedupe marks and key lists. */
  redis: Redis;
  /** Our key for the parts (`seen`, id) or (`key`, job key). */
  key: (...parts: string[]) => string;
  /** The job's id in BullMQ (and in its key's list). */
  bullId: (id: string) => string;
  retentionMs: number;
  /** Adds jobs to BullMQ under their {@link RedisIntakeOptions.bullId}: many in one call, or one. */
  queue: { addBulk(jobs: JobInput<T>[]): Promise<unknown>; add(job: JobInput<T>): Promise<unknown> };
}

/**
 * The Redis engine's enqueue, batched per turn of the event loop. Dedupe by id in two steps so a receiver that dies
 * between them loses nothing: ids are first marked pending (with their key's list entry), then queued, then marked
 * done. A pending mark older than {@link PENDING_STALE_MS} is an enqueue that never finished: a redelivery of the id
 * takes it over. (Marked seen in one step before the add, a crash in between left the delivery seen but never queued:
 * every redelivery was dropped as a duplicate for the retention window.)
 *
 * Each step is one command for the whole batch: one script marks every id, one `addBulk` queues the accepted ones,
 * one script marks them done. In a webhook storm the receiver had made three commands per delivery (~550 in all),
 * each with its own promise and encoding, and the ack waited on them.
 */
export function createRedisIntake<T>(o: RedisIntakeOptions<T>): (job: JobInput<T>) => Promise<boolean> {
  const seen = (job: JobInput<T>) => o.key("seen", job.id);

  /**
   * Queues the jobs; one outcome each. A bad job fails the whole bulk (and the pipeline may have added the jobs
   * before it): then each job is added again on its own, so only the jobs that cannot be added fail. BullMQ adds a
   * job id once: adding one that made it again changes nothing.
   */
  const addAll = async (jobs: JobInput<T>[]): Promise<Settled<true>[]> => {
    try {
      await o.queue.addBulk(jobs);
      return jobs.map(() => ({ ok: true, value: true }));
    } catch {
      return Promise.all(
        jobs.map((job) =>
          o.queue.add(job).then(
            (): Settled<true> => ({ ok: true, value: true }),
            (error: unknown): Settled<true> => ({ ok: false, error }),
          ),
        ),
      );
    }
  };

  return createTickBatch<JobInput<T>, boolean>(async (jobs) => {
    const now = Date.now();
    const keys = jobs.flatMap((job) => [seen(job), o.key("key", job.key)]);
    const marked = (await o.redis.eval(MARK_PENDING, keys.length, ...keys, now, o.retentionMs, now - PENDING_STALE_MS, ...jobs.map((job) => o.bullId(job.id)))) as number[];
    const outcomes: Settled<boolean>[] = jobs.map(() => ({ ok: true, value: false }));
    const accepted = jobs.flatMap((job, i) => (marked[i] === 1 ? [i] : []));
    if (accepted.length === 0) return outcomes;
    const added = await addAll(accepted.map((i) => jobs[i]!));
    const queued = accepted.filter((_, n) => added[n]!.ok);
    const failed = accepted.filter((_, n) => !added[n]!.ok);
    const [done] = await Promise.allSettled([
      queued.length > 0 ? o.redis.eval(MARK_DONE, queued.length, ...queued.map((i) => seen(jobs[i]!)), now, o.retentionMs) : undefined,
      // Not queued: a redelivery may try again at once (if Redis is gone, the pending mark goes stale instead).
      failed.length > 0 ? o.redis.del(...failed.map((i) => seen(jobs[i]!))) : undefined,
    ]);
    accepted.forEach((i, n) => {
      const add = added[n]!;
      if (!add.ok) outcomes[i] = add;
      else outcomes[i] = done.status === "fulfilled" ? add : { ok: false, error: done.reason };
    });
    return outcomes;
  });
}
