import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { DelayedError, Queue, Worker, type Job as BullJob } from "bullmq";
import { Redis } from "ioredis";
import { createInstallationSlots } from "./redis-slots.js";
import { createRedisSchedules } from "./redis-schedules.js";
import { createRedisIntake } from "./redis-intake.js";
import {
  definedOnly,
  ENGINE_DEFAULTS,
  JobStopped,
  stopReason,
  type AbandonReason,
  type EngineJob,
  type EngineOptions,
  type JobEngine,
  type JobInput,
  type ScheduledJob,
  type ShutdownResult,
} from "./job-engine.js";

export interface RedisEngineOptions<T> extends EngineOptions<T> {
  redisUrl: string;
  /** Namespaces every key (BullMQ's and ours): processes with the same prefix share one queue. */
  prefix?: string;
  /** How often this process queues the outbox records whose mover died (see redis-intake's sweep). */
  sweepMs?: number;
  /** Age at which an outbox record is taken as its mover's loss (see redis-intake's OUTBOX_STALE_MS). */
  outboxStaleMs?: number;
  /**
   * How soon a job whose key or installation is busy is looked at again if nothing wakes it first (the end of the
   * job before it, or a freed slot, does): a fallback for a wake-up lost with a process that died.
   */
  busyRetryMs?: number;
}

type Payload<T> = JobInput<T>;
interface Tick<T> {
  scheduleId: string;
  template: ScheduledJob<T>;
}

const TICK = "schedule-tick";

interface Local<T> {
  job: EngineJob<T>;
  controller: AbortController;
}

/**
 * The queue over Redis: BullMQ stores and leases the jobs (its lock and stalled-job check find jobs whose worker
 * died), and this adapter adds what open-source BullMQ lacks. One job at a time per key: every key has a FIFO list of
 * job ids in Redis and only its head may run; a job that is not the head (or whose installation is at its limit)
 * goes back to the delayed set, and is promoted when the job before it ends (or a slot frees), or after
 * `busyRetryMs` if that wake-up was lost. Per-installation limit: a leased semaphore in Redis (redis-slots). Cancel:
 * a pub/sub message to every worker. Intake: one script per batch of enqueues records each job durably (dedupe mark,
 * key list, outbox) before the answer, and the jobs go into BullMQ after it (redis-intake); every process sweeps
 * the outbox for records whose mover died. Schedules: BullMQ job schedulers
 * armed once for the cluster (redis-schedules), whose tick jobs enqueue the real job under a tick id.
 */
export function createRedisEngine<T>(options: RedisEngineOptions<T>): JobEngine<T> {
  const o = { ...ENGINE_DEFAULTS, prefix: "aider-bot", busyRetryMs: 5_000, sweepMs: 5_000, ...definedOnly(options) };
  const connect = () => new Redis(o.redisUrl, { maxRetriesPerRequest: null });
  // Commands issued in one turn of the event loop go out in one write. In a webhook storm, the receiver's ~550
  // commands were ~550 socket writes, a third of its busy time. Not for the worker's and the subscriber's connections:
  // their blocking reads must not hold other commands back.
  const pipelined = () => new Redis(o.redisUrl, { maxRetriesPerRequest: null, enableAutoPipelining: true });
  const redis = pipelined();
  const connections: Redis[] = [redis];
  const k = (...parts: (string | number)[]) => [o.prefix, "x", ...parts].join(":");
  const queueName = "jobs";
  const queue = new Queue<Payload<T> | Tick<T>>(queueName, { connection: track(pipelined()), prefix: o.prefix });
  const me = `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
  const local = new Map<string, Local<T>>();
  let closed = false;
  /** Jobs a shutdown stopped while they were being claimed (after it had aborted the running ones). */
  const stoppedLate: EngineJob<T>[] = [];
  let worker: Worker<Payload<T> | Tick<T>> | undefined;
  let sub: Redis | undefined;
  let heartbeat: NodeJS.Timeout | undefined;

  function track(r: Redis): Redis {
    connections.push(r);
    return r;
  }
  const report = (error: unknown) => o.onError?.(error);
  const slots = createInstallationSlots({
    redis,
    queue,
    key: k,
    limit: o.perInstallation,
    leaseMs: o.leaseMs,
    retryMs: o.busyRetryMs,
    report,
  });
  const schedules = createRedisSchedules<Payload<T> | Tick<T>>({ redis, queue, key: k, tickName: TICK, report });
  const bullId = (id: string) => `j${Buffer.from(id).toString("base64url")}`;
  const asJob = (p: Payload<T>, b: BullJob): EngineJob<T> => ({
    id: p.id,
    key: p.key,
    installationId: p.installationId,
    kind: p.kind,
    data: p.data,
    attempt: b.attemptsMade + (b.stalledCounter ?? 0) + 1,
  });

  /** Calls the hook once per job across the cluster, whichever process noticed first. */
  const abandon = async (job: EngineJob<T>, reason: AbandonReason) => {
    const first = await redis.set(k("abandoned", job.id), "1", "EX", 86_400, "NX");
    if (first) await o.onAbandoned?.(job, reason);
  };

  const jobOptions = (job: JobInput<T>) => ({
    jobId: bullId(job.id),
    attempts: o.attempts,
    backoff: { type: "exponential", delay: o.backoffMs },
    removeOnComplete: true,
    removeOnFail: { age: 86_400 },
  });
  // Recorded durably (dedupe by id, key list, outbox) per turn of the event loop, queued in BullMQ after the answer.
  const intake = createRedisIntake<T>({
    redis,
    key: k,
    bullId,
    retentionMs: o.retentionMs,
    queue: {
      addBulk: (jobs) => queue.addBulk(jobs.map((job) => ({ name: job.kind, data: job, opts: jobOptions(job) }))),
      add: (job) => queue.add(job.kind, job, jobOptions(job)),
    },
    ...(o.quiet ? { quiet: o.quiet } : {}),
    ...(o.outboxStaleMs !== undefined ? { staleMs: o.outboxStaleMs } : {}),
    report,
  });
  const enqueue = async (job: JobInput<T>): Promise<boolean> => (closed ? false : intake.enqueue(job));
  // Records left by a process that died before queueing them: looked for at start, then every `sweepMs`.
  // One sweep at a time: while Redis is unreachable its commands wait for the reconnection instead of piling up.
  let sweeping: Promise<unknown> | null = null;
  const sweep = () => {
    sweeping ??= intake
      .sweep()
      .catch(report)
      .finally(() => (sweeping = null));
  };
  sweep();
  const sweeper = setInterval(sweep, o.sweepMs);

  /**
   * Wakes the job now at the head of `key`'s list if it waits in the delayed set for its turn, so the next job of a
   * PR or thread starts when the one before it ends, not up to `busyRetryMs` later. (In a storm of 170 commands on
   * 40 threads, waiting out the retry delay at each turn put the first feedback's p50 at ~2 s and its p99 over 3 s.)
   */
  const wakeHead = async (key: string): Promise<void> => {
    const head = await redis.lindex(k("key", key), 0);
    if (head === null) return;
    await queue
      .getJob(head)
      .then((next) => next?.promote())
      .catch(() => {
        // Not delayed (waiting, running, or gone): it needs no wake-up.
      });
  };

  /** Drops a finished job from its key's list and wakes the next one. */
  const release = async (key: string, id: string): Promise<void> => {
    await redis.lrem(k("key", key), 1, id);
    await wakeHead(key).catch(report);
  };

  /**
   * Waits its turn: back to the delayed set, then, once there, one more look at the key's list. The job before it
   * may have ended between the head check and the move (its wake-up then found this job still running, not
   * delayed); whichever of the two looks second sees the other's change and promotes it.
   */
  const waitTurn = async (b: BullJob, key: string, id: string, token: string | undefined): Promise<never> => {
    await b.moveToDelayed(Date.now() + o.busyRetryMs, token);
    if ((await isHead(key, id).catch(() => false)) === true) await b.promote().catch(() => undefined); // woken already
    throw new DelayedError();
  };

  /**
   * Whether this job is the head of its key's list; drops a head that ended without leaving the list (its process
   * died between two writes). A head still in the outbox (recorded, not yet queued) is waited for.
   */
  const isHead = async (key: string, id: string): Promise<boolean | "gone"> => {
    for (;;) {
      const head = await redis.lindex(k("key", key), 0);
      if (head === id) return true;
      if (head === null) return "gone";
      let headJob = await queue.getJob(head);
      // Not in BullMQ: still in the outbox (a live head, waited for), or moved out of it just now (queued before its
      // record is cleared: look again).
      const recorded = !headJob && (await intake.inOutbox(head));
      if (!headJob && !recorded) headJob = await queue.getJob(head);
      const state = recorded ? "recorded" : headJob ? await headJob.getState() : "unknown";
      if (state === "completed" || state === "failed" || state === "unknown") {
        await redis.lrem(k("key", key), 1, head);
        // A job failed for good whose report was missed (the process that saw it died first): report it now, once.
        if (state === "failed" && headJob && headJob.name !== TICK) {
          const reason: AbandonReason = /stalled/i.test(headJob.failedReason ?? "")
            ? { kind: "worker-lost", message: `its worker stopped renewing its lock (${headJob.failedReason})` }
            : { kind: "crashed", message: headJob.failedReason ?? "unknown error" };
          await abandon(asJob(headJob.data as Payload<T>, headJob), reason);
        }
        continue;
      }
      return (await redis.lpos(k("key", key), id)) === null ? "gone" : false;
    }
  };

  const processor = async (b: BullJob<Payload<T> | Tick<T>>, token?: string) => {
    if (b.name === TICK) {
      const { scheduleId, template } = b.data as Tick<T>;
      // The tick's time from the scheduler's job id (repeat:<id>:<ms>): the same on every replica.
      const tick = /:(\d+)$/.exec(b.id ?? "")?.[1] ?? String(b.timestamp);
      await enqueue({ ...template, id: `schedule:${scheduleId}:${tick}` });
      return;
    }
    const p = b.data as Payload<T>;
    const id = b.id!;
    const head = await isHead(p.key, id);
    if (head === "gone") return; // cancelled while it waited
    if (!head) return waitTurn(b, p.key, id, token);
    const takeSlot = () => slots.take(p.installationId, id);
    if (!(await takeSlot())) return slots.wait(b, p.installationId, token);
    const job = asJob(p, b);
    const controller = new AbortController();
    local.set(id, { job, controller });
    // A shutdown that began while this job was being claimed stopped only the jobs already here: stop this one too,
    // before its handler starts, so the worker's close does not wait on a handler that will never see an abort.
    if (closed) {
      controller.abort(new JobStopped("shutdown"));
      stoppedLate.push(job);
    }
    const markRunning = () => redis.set(k("running", id), me, "PX", o.leaseMs * 2);
    await markRunning();
    const renew = setInterval(
      () => void Promise.all([takeSlot(), markRunning()]).catch(report),
      Math.max(50, o.leaseMs / 3),
    );
    let error: unknown;
    try {
      // A cancel sent between the head check and here would be missed: look for its marker once.
      if (controller.signal.aborted) {
        // stopped by a shutdown before it began
      } else if (await redis.get(k("cancel", id))) controller.abort(new JobStopped("cancel"));
      else await o.handler!(job, controller.signal);
    } catch (e) {
      error = e ?? new Error("the job failed without an error");
    } finally {
      clearInterval(renew);
      local.delete(id);
      await redis.del(k("running", id));
      await slots.free(p.installationId, id);
    }
    const stopped = stopReason(controller.signal);
    if (stopped === "shutdown") {
      // Back to the queue at once, for this or another worker; the key's list keeps it at the head.
      await b.moveToDelayed(Date.now(), token);
      throw new DelayedError();
    }
    if (error !== undefined && stopped !== "cancel") {
      if (b.attemptsMade + 1 < o.attempts) throw error; // BullMQ retries it after the backoff, still the key's head
      await release(p.key, id);
      await abandon(job, { kind: "crashed", message: error instanceof Error ? error.message : String(error) });
      throw error;
    }
    await release(p.key, id);
  };

  if (o.handler) {
    worker = new Worker<Payload<T> | Tick<T>>(queueName, processor, {
      connection: track(connect()),
      prefix: o.prefix,
      concurrency: o.concurrency,
      lockDuration: o.leaseMs,
      stalledInterval: o.leaseMs,
      maxStalledCount: Math.max(0, o.attempts - 1),
    });
    worker.on("error", report);
    // A job that stalled more often than allowed: BullMQ marks it (a deferred failure) and puts it back in the queue,
    // and the next worker to fetch it fails it without calling the processor. That worker's own "failed" event hands
    // it to the hook, once. (Each worker used to read the queue's whole event stream for this, ~240 ms of CPU per
    // worker in a quick webhook storm.) A report missed with a worker that died first is made by the next job of the
    // key, which finds the failed job at the head of its list (see isHead).
    worker.on("failed", (b, err) => {
      if (!b?.id || b.name === TICK || err.name !== "UnrecoverableError" || !/stalled/i.test(err.message)) return;
      const p = b.data as Payload<T>;
      const id = b.id;
      void (async () => {
        await release(p.key, id);
        await abandon(asJob(p, b), {
          kind: "worker-lost",
          message: `its worker stopped renewing its lock (${err.message})`,
        });
      })().catch(report);
    });
    sub = track(connect());
    void sub.subscribe(k("cancel")).catch(report);
    sub.on("message", (_channel: string, key: string) => {
      for (const l of local.values())
        if (l.job.key === key && !l.controller.signal.aborted) l.controller.abort(new JobStopped("cancel"));
    });
    const beat = () =>
      void redis
        .multi()
        .zadd(k("workers"), Date.now(), me)
        .zremrangebyscore(k("workers"), "-inf", Date.now() - 10 * o.leaseMs)
        .exec()
        .catch(report);
    beat();
    heartbeat = setInterval(beat, Math.max(50, o.leaseMs / 3));
  }

  return {
    enqueue,
    async cancel(key) {
      let dropped = 0;
      let aborted = 0;
      for (const id of await redis.lrange(k("key", key), 0, -1)) {
        // The marker first: a worker marks a job running and then reads this marker, so either it sees the marker
        // or we see its running mark below.
        await redis.set(k("cancel", id), "1", "PX", o.leaseMs * 4);
        if (await redis.exists(k("running", id))) {
          aborted++;
          continue;
        }
        // Off the key's list it can never run (only a list's head runs): that is what dropping means. Its queue
        // entry may be gone already (a busy worker's retry of its head check failed), or held by a worker doing
        // that check, which then finds it gone from the list and completes it.
        const removed = await redis.lrem(k("key", key), 1, id);
        if (removed > 0) dropped++;
        const b = await queue.getJob(id);
        await b?.remove().catch(() => {
          // Locked by a worker doing its head check: that check finds it gone from the list and completes it.
        });
      }
      if (aborted > 0) await redis.publish(k("cancel"), key);
      return { dropped, aborted };
    },
    upsertSchedule: (id, cron, template, timezone) =>
      schedules.upsert(id, cron, { scheduleId: id, template }, timezone),
    removeSchedule: (id) => schedules.remove(id),
    async stats() {
      // The outbox first, then BullMQ: a job is queued before its record is cleared, so one moving meanwhile is seen
      // in one or the other (or, for a moment, both), never in neither; `idle` must not see zero while one moves.
      const recorded = await intake.outboxSize();
      const [counts, workers] = await Promise.all([
        queue.getJobCounts("waiting", "delayed", "prioritized", "active"),
        redis.zcount(k("workers"), Date.now() - o.leaseMs, "+inf"),
      ]);
      return {
        queued: (counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0) + recorded,
        running: counts.active ?? 0,
        workers,
      };
    },
    async shutdown(graceMs): Promise<ShutdownResult<T>> {
      if (closed) return { requeued: [], waiting: [] };
      closed = true;
      const requeued: EngineJob<T>[] = [];
      if (worker) {
        const closing = worker.close();
        if (!(await within(closing, graceMs))) {
          for (const l of local.values()) {
            l.controller.abort(new JobStopped("shutdown"));
            requeued.push(l.job);
          }
          // A handler that ignores its signal must not hold the process forever: one more grace period.
          if (!(await within(closing, graceMs))) await worker.close(true);
        }
      }
      requeued.push(...stoppedLate.filter((j) => !requeued.includes(j)));
      clearInterval(heartbeat);
      clearInterval(sweeper);
      // What this process recorded goes into BullMQ before its connections close (or, if it cannot, a sweep does it).
      await Promise.all([intake.drain().catch(report), sweeping]);
      await redis.zrem(k("workers"), me).catch(report);
      await queue.close().catch(report);
      for (const c of connections) c.disconnect();
      // Queued jobs stay in Redis for the other workers (or the next start): none belongs to this process.
      return { requeued, waiting: [] };
    },
  };
}

/** Whether `promise` settled within `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
