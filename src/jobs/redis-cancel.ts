import type { CancelResult } from "./job-engine.js";
import type { RedisState } from "./redis-state.js";

/** Aborts the key's running job wherever it runs (a marker, and a message to every worker) and drops its queued ones. */
export async function cancelKey<T>(s: RedisState<T>, key: string): Promise<CancelResult> {
  let dropped = 0;
  let aborted = 0;
  for (const id of await s.redis.lrange(s.k("key", key), 0, -1)) {
    // The marker first: a worker marks a job running and then reads this marker, so either it sees the marker
    // or we see its running mark below.
    await s.redis.set(s.k("cancel", id), "1", "PX", s.o.leaseMs * 4);
    if (await s.redis.exists(s.k("running", id))) {
      aborted++;
      continue;
    }
    // Off the key's list it can never run (only a list's head runs): that is what dropping means. Its queue
    // entry may be gone already (a busy worker's retry of its head check failed), or held by a worker doing
    // that check, which then finds it gone from the list and completes it.
    const removed = await s.redis.lrem(s.k("key", key), 1, id);
    if (removed > 0) dropped++;
    const b = await s.queue.getJob(id);
    await b?.remove().catch(() => {
      // Locked by a worker doing its head check: that check finds it gone from the list and completes it.
    });
  }
  if (aborted > 0) await s.redis.publish(s.k("cancel"), key);
  return { dropped, aborted };
}
