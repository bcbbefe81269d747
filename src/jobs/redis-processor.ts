import { DelayedError, type Job as BullJob } from "bullmq";
import { JobStopped, stopReason, type JobInput } from "./job-engine.js";
import { isHead, releaseKey, waitTurn } from "./redis-key-order.js";
import { abandonOnce, asJob, TICK, type QueueData, type RedisState, type Tick } from "./redis-state.js";

/**
 * BullMQ's processor for one job: a schedule's tick enqueues its real job; a job runs once it is its key's head and
 * holds a slot of its installation, and otherwise waits its turn in the delayed set.
 */
export async function processJob<T>(s: RedisState<T>, b: BullJob<QueueData<T>>, token?: string): Promise<void> {
  if (b.name === TICK) {
    const { scheduleId, template } = b.data as Tick<T>;
    // The tick's time from the scheduler's job id (repeat:<id>:<ms>): the same on every replica.
    const tick = /:(\d+)$/.exec(b.id ?? "")?.[1] ?? String(b.timestamp);
    if (!s.closed) await s.intake.enqueue({ ...template, id: `schedule:${scheduleId}:${tick}` });
    return;
  }
  const p = b.data as JobInput<T>;
  const id = b.id ?? "";
  const head = await isHead(s, p.key, id);
  if (head === "gone") return; // cancelled while it waited
  if (!head) return waitTurn(s, b, p.key, id, token);
  if (!(await s.slots.take(p.installationId, id))) return s.slots.wait(b, p.installationId, token);
  const { error, stopped } = await runHandler(s, b, p, id);
  if (stopped === "shutdown") {
    // Back to the queue at once, for this or another worker; the key's list keeps it at the head.
    await b.moveToDelayed(Date.now(), token);
    throw new DelayedError();
  }
  if (error !== undefined && stopped !== "cancel") {
    if (b.attemptsMade + 1 < s.o.attempts) throw error; // BullMQ retries it after the backoff, still the key's head
    await releaseKey(s, p.key, id);
    const message = error instanceof Error ? error.message : String(error);
    await abandonOnce(s, asJob(p, b), { kind: "crashed", message });
    throw error;
  }
  await releaseKey(s, p.key, id);
}

/**
 * Runs the handler of a job that holds its key and a slot, renewing its running mark and its slot meanwhile; frees
 * both after. A shutdown that began while this job was being claimed stopped only the jobs already here: this one is
 * stopped too, before its handler starts, so the worker's close does not wait on a handler that will never see an
 * abort.
 */
async function runHandler<T>(s: RedisState<T>, b: BullJob, p: JobInput<T>, id: string) {
  const job = asJob(p, b);
  const controller = new AbortController();
  s.local.set(id, { job, controller });
  if (s.closed) {
    controller.abort(new JobStopped("shutdown"));
    s.stoppedLate.push(job);
  }
  const markRunning = () => s.redis.set(s.k("running", id), s.me, "PX", s.o.leaseMs * 2);
  await markRunning();
  const renew = setInterval(
    () => void Promise.all([s.slots.take(p.installationId, id), markRunning()]).catch(s.report),
    Math.max(50, s.o.leaseMs / 3),
  );
  let error: unknown;
  try {
    // A cancel sent between the head check and here would be missed: look for its marker once.
    if (controller.signal.aborted) {
      // stopped by a shutdown before it began
    } else if (await s.redis.get(s.k("cancel", id))) controller.abort(new JobStopped("cancel"));
    else if (s.o.handler) await s.o.handler(job, controller.signal);
  } catch (e) {
    error = e ?? new Error("the job failed without an error");
  } finally {
    clearInterval(renew);
    s.local.delete(id);
    await s.redis.del(s.k("running", id));
    await s.slots.free(p.installationId, id);
  }
  return { error, stopped: stopReason(controller.signal) };
}
