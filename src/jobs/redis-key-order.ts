import { DelayedError, type Job as BullJob } from "bullmq";
import type { AbandonReason, JobInput } from "./job-engine.js";
import { abandonOnce, asJob, TICK, type RedisState } from "./redis-state.js";

/**
 * One job at a time per key over Redis: every key has a FIFO list of BullMQ ids and only its head may run. A job
 * that is not the head goes back to the delayed set and is promoted when the job before it ends (or after
 * `busyRetryMs`, if that wake-up was lost with a process that died).
 */

/**
 * Wakes the job now at the head of `key`'s list if it waits in the delayed set for its turn, so the next job of a
 * PR or thread starts when the one before it ends, not up to `busyRetryMs` later. (In a storm of 170 commands on
 * 40 threads, waiting out the retry delay at each turn put the first feedback's p50 at ~2 s and its p99 over 3 s.)
 */
async function wakeHead<T>(s: RedisState<T>, key: string): Promise<void> {
  const head = await s.redis.lindex(s.k("key", key), 0);
  if (head === null) return;
  await s.queue
    .getJob(head)
    .then((next) => next?.promote())
    .catch(() => {
      // Not delayed (waiting, running, or gone): it needs no wake-up.
    });
}

/** Drops a finished job from its key's list and wakes the next one. */
export async function releaseKey<T>(s: RedisState<T>, key: string, id: string): Promise<void> {
  await s.redis.lrem(s.k("key", key), 1, id);
  await wakeHead(s, key).catch(s.report);
}

/**
 * Waits its turn: back to the delayed set, then, once there, one more look at the key's list. The job before it
 * may have ended between the head check and the move (its wake-up then found this job still running, not
 * delayed); whichever of the two looks second sees the other's change and promotes it.
 */
export async function waitTurn<T>(
  s: RedisState<T>,
  b: BullJob,
  key: string,
  id: string,
  token: string | undefined,
): Promise<never> {
  await b.moveToDelayed(Date.now() + s.o.busyRetryMs, token);
  if ((await isHead(s, key, id).catch(() => false)) === true) await b.promote().catch(() => undefined); // woken already
  throw new DelayedError();
}

/**
 * Whether this job is the head of its key's list; drops a head that ended without leaving the list (its process
 * died between two writes). A head still in the outbox (recorded, not yet queued) is waited for.
 */
export async function isHead<T>(s: RedisState<T>, key: string, id: string): Promise<boolean | "gone"> {
  for (;;) {
    const head = await s.redis.lindex(s.k("key", key), 0);
    if (head === id) return true;
    if (head === null) return "gone";
    if (!(await dropIfEnded(s, key, head))) return (await s.redis.lpos(s.k("key", key), id)) === null ? "gone" : false;
  }
}

/** Drops a head that ended (completed, failed, or unknown to BullMQ and the outbox); true when it did. */
async function dropIfEnded<T>(s: RedisState<T>, key: string, head: string): Promise<boolean> {
  let headJob = await s.queue.getJob(head);
  // Not in BullMQ: still in the outbox (a live head, waited for), or moved out of it just now (queued before its
  // record is cleared: look again).
  const recorded = !headJob && (await s.intake.inOutbox(head));
  if (!headJob && !recorded) headJob = await s.queue.getJob(head);
  const state = recorded ? "recorded" : headJob ? await headJob.getState() : "unknown";
  if (state !== "completed" && state !== "failed" && state !== "unknown") return false;
  await s.redis.lrem(s.k("key", key), 1, head);
  // A job failed for good whose report was missed (the process that saw it died first): report it now, once.
  if (state === "failed" && headJob && headJob.name !== TICK) {
    const reason: AbandonReason = /stalled/i.test(headJob.failedReason ?? "")
      ? { kind: "worker-lost", message: `its worker stopped renewing its lock (${headJob.failedReason})` }
      : { kind: "crashed", message: headJob.failedReason ?? "unknown error" };
    await abandonOnce(s, asJob(headJob.data as JobInput<T>, headJob), reason);
  }
  return true;
}
