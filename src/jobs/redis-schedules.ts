import { randomBytes } from "node:crypto";
import type { Redis } from "ioredis";

/** How long a process may hold a schedule's lock (an upsert takes milliseconds). */
const LOCK_MS = 10_000;

/** Deletes a lock only if it still holds this process's token. KEYS: the lock. ARGV: the token. */
const RELEASE_LOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

export interface RedisSchedules<D> {
  /** Arm schedule `id` for the whole cluster: each tick adds one job named `tickName` with `data`. */
  upsert(id: string, cron: string, data: D, timezone?: string): Promise<void>;
  remove(id: string): Promise<void>;
}

/**
 * Schedules as BullMQ job schedulers, armed once for the whole cluster. Every replica arms every schedule at its
 * start, and BullMQ's upsert is not safe to repeat while a tick runs: an upsert whose next time was computed just
 * before a tick, landing just after the running tick had scheduled its successor, removes that successor and points
 * the scheduler back at the running tick, which leaves no next tick once it completes (seen as a schedule that fired
 * once and never again). So replicas take turns under a lock, and an upsert is done only when the schedule changed
 * (what the last arming stored differs) or has stalled (its next tick's job is gone).
 */
export function createRedisSchedules<D>(o: {
  redis: Redis;
  /** The BullMQ queue the ticks go to (the part of it used here). */
  queue: {
    getJobScheduler(id: string): Promise<{ next?: number | null } | undefined>;
    getJob(id: string): Promise<unknown>;
    upsertJobScheduler(
      id: string,
      repeat: { pattern: string; tz: string },
      template: { name: string; data: D; opts: { removeOnComplete: boolean; removeOnFail: boolean } },
    ): Promise<unknown>;
    removeJobScheduler(id: string): Promise<unknown>;
  };
  key: (...parts: (string | number)[]) => string;
  tickName: string;
  report: (error: unknown) => void;
}): RedisSchedules<D> {
  const { redis, queue } = o;

  /** Runs `fn` holding the schedule's lock; waits up to {@link LOCK_MS} for a holder (a dead one's lock expires). */
  const locked = async (id: string, fn: () => Promise<void>): Promise<void> => {
    const lock = o.key("schedule-lock", id);
    const token = randomBytes(8).toString("hex");
    const deadline = Date.now() + LOCK_MS;
    while ((await redis.set(lock, token, "PX", LOCK_MS, "NX")) !== "OK") {
      if (Date.now() > deadline)
        throw new Error(`could not arm schedule ${id}: another process held its lock for ${LOCK_MS} ms`);
      await new Promise((r) => setTimeout(r, 25));
    }
    try {
      await fn();
    } finally {
      await redis.eval(RELEASE_LOCK, 1, lock, token).catch(o.report);
    }
  };

  return {
    upsert: (id, cron, data, timezone = "UTC") =>
      locked(id, async () => {
        // A schedule in UTC is stored as before (no `timezone`), so an upgrade does not re-arm every schedule.
        const wanted = JSON.stringify(timezone === "UTC" ? { cron, data } : { cron, data, timezone });
        if ((await redis.get(o.key("schedule", id))) === wanted) {
          const next = (await queue.getJobScheduler(id))?.next;
          if (next && (await queue.getJob(`repeat:${id}:${next}`))) return;
        }
        await queue.upsertJobScheduler(
          id,
          { pattern: cron, tz: timezone },
          { name: o.tickName, data, opts: { removeOnComplete: true, removeOnFail: true } },
        );
        await redis.set(o.key("schedule", id), wanted);
      }),
    remove: (id) =>
      locked(id, async () => {
        await queue.removeJobScheduler(id);
        await redis.del(o.key("schedule", id));
      }),
  };
}
