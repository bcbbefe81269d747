import { DelayedError, type Job as BullJob } from "bullmq";
import type { Redis } from "ioredis";

/**
 * Takes (or renews) a slot of an installation's semaphore: a sorted set of job ids scored by lease expiry, so a dead
 * worker's slot frees itself when its lease runs out. A job that takes a slot leaves the installation's waiters.
 * KEYS: the slots, the waiters. ARGV: now, lease end, job id, limit, key expiry ms. 1: taken; 0: all slots held.
 */
const ACQUIRE_SLOT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[3]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[4]) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  redis.call('ZREM', KEYS[2], ARGV[3])
  return 1
end
return 0`;

/** How many of an installation's oldest waiters a freed slot looks at for one to wake. */
const WAKE_SCAN = 16;

export interface InstallationSlots {
  /** Take a slot for job `id`, or renew the one it holds; false when every slot is held. */
  take(installationId: number, id: string): Promise<boolean>;
  /**
   * Wait for a slot: listed among the installation's waiters (by when the job was queued, so the oldest is woken
   * first), back to BullMQ's delayed set, then one more look. A slot freed between the failed take and the move woke
   * no one (this job was running, not delayed): the second look sees it free and promotes this job. Always throws
   * BullMQ's `DelayedError`, which tells the worker the job was moved.
   */
  wait(b: BullJob, installationId: number, token: string | undefined): Promise<never>;
  /** Free job `id`'s slot and wake the installation's oldest waiter that sits in the delayed set. */
  free(installationId: number, id: string): Promise<void>;
}

/**
 * The per-installation limit over Redis, shared by every worker: slots leased in a sorted set, and the jobs waiting
 * for one woken when one frees (`retryMs` is only the fallback for a wake-up lost with a process that died).
 */
export function createInstallationSlots(o: {
  redis: Redis;
  /** Finds a waiter's job, to promote it out of the delayed set. */
  queue: { getJob(id: string): Promise<{ promote(): Promise<void> } | undefined> };
  key: (...parts: (string | number)[]) => string;
  limit: number;
  leaseMs: number;
  retryMs: number;
  report: (error: unknown) => void;
}): InstallationSlots {
  const { redis } = o;
  const slots = (installationId: number) => o.key("inst", installationId);
  const waiters = (installationId: number) => o.key("inst-wait", installationId);

  /**
   * A waiter being looked at now (not delayed) stays listed and is passed over: it takes the slot, or sees it free
   * on its second look, or, if another job took it first, waits listed for the next one. (Taken off the list when
   * passed over, it would wait the whole retry delay.)
   */
  const wakeOldest = async (installationId: number): Promise<void> => {
    const list = waiters(installationId);
    for (const waiter of await redis.zrange(list, "0", String(WAKE_SCAN - 1))) {
      const next = await o.queue.getJob(waiter);
      if (!next) {
        await redis.zrem(list, waiter); // cancelled or finished since
        continue;
      }
      const woken = await next.promote().then(
        () => true,
        () => false,
      );
      if (woken) return;
    }
  };

  return {
    async take(installationId, id) {
      const now = Date.now();
      return (
        (await redis.eval(
          ACQUIRE_SLOT,
          2,
          slots(installationId),
          waiters(installationId),
          now,
          now + o.leaseMs,
          id,
          o.limit,
          o.leaseMs * 2,
        )) === 1
      );
    },
    async wait(b, installationId, token) {
      await redis.zadd(waiters(installationId), "NX", b.timestamp, b.id!);
      await b.moveToDelayed(Date.now() + o.retryMs, token);
      const held = slots(installationId);
      await redis.zremrangebyscore(held, "-inf", Date.now());
      if ((await redis.zcard(held)) < o.limit) await b.promote().catch(() => undefined); // woken already
      throw new DelayedError();
    },
    async free(installationId, id) {
      await redis.zrem(slots(installationId), id);
      await wakeOldest(installationId).catch(o.report);
    },
  };
}
