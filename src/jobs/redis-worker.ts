import { Worker } from "bullmq";
import { JobStopped, type JobInput } from "./job-engine.js";
import { releaseKey } from "./redis-key-order.js";
import { processJob } from "./redis-processor.js";
import { abandonOnce, asJob, connect, QUEUE_NAME, TICK, type QueueData, type RedisState } from "./redis-state.js";

/**
 * Makes this process a worker: BullMQ's worker with its lock (the lease) and stalled-job check, the report of jobs
 * that stalled too often, the cancel subscription, and this worker's heartbeat (counted by `stats`).
 */
export function startRedisWorker<T>(s: RedisState<T>): void {
  const worker = new Worker<QueueData<T>>(QUEUE_NAME, (b, token) => processJob(s, b, token), {
    connection: connect(s),
    prefix: s.o.prefix,
    concurrency: s.o.concurrency,
    lockDuration: s.o.leaseMs,
    stalledInterval: s.o.leaseMs,
    maxStalledCount: Math.max(0, s.o.attempts - 1),
  });
  s.worker = worker;
  worker.on("error", s.report);
  // A job that stalled more often than allowed: BullMQ marks it (a deferred failure) and puts it back in the queue,
  // and the next worker to fetch it fails it without calling the processor. That worker's own "failed" event hands
  // it to the hook, once. (Each worker used to read the queue's whole event stream for this, ~240 ms of CPU per
  // worker in a quick webhook storm.) A report missed with a worker that died first is made by the next job of the
  // key, which finds the failed job at the head of its list (see redis-key-order).
  worker.on("failed", (b, err) => {
    if (!b?.id || b.name === TICK || err.name !== "UnrecoverableError" || !/stalled/i.test(err.message)) return;
    const p = b.data as JobInput<T>;
    const id = b.id;
    void (async () => {
      await releaseKey(s, p.key, id);
      await abandonOnce(s, asJob(p, b), {
        kind: "worker-lost",
        message: `its worker stopped renewing its lock (${err.message})`,
      });
    })().catch(s.report);
  });
  subscribeToCancels(s);
  const beat = () =>
    void s.redis
      .multi()
      .zadd(s.k("workers"), Date.now(), s.me)
      .zremrangebyscore(s.k("workers"), "-inf", Date.now() - 10 * s.o.leaseMs)
      .exec()
      .catch(s.report);
  beat();
  s.timers.heartbeat = setInterval(beat, Math.max(50, s.o.leaseMs / 3));
}

/** A cancel is published to every worker: the one running a job of the key aborts it. */
function subscribeToCancels<T>(s: RedisState<T>): void {
  const sub = connect(s);
  void sub.subscribe(s.k("cancel")).catch(s.report);
  sub.on("message", (_channel: string, key: string) => {
    for (const l of s.local.values())
      if (l.job.key === key && !l.controller.signal.aborted) l.controller.abort(new JobStopped("cancel"));
  });
}
