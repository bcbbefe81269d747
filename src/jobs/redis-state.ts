import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { Queue, type Job as BullJob, type Worker } from "bullmq";
import { Redis } from "ioredis";
import {
  definedOnly,
  ENGINE_DEFAULTS,
  type AbandonReason,
  type EngineJob,
  type EngineOptions,
  type EngineSettings,
  type JobInput,
  type ScheduledJob,
} from "./job-engine.js";
import { createRedisIntake, type RedisIntake } from "./redis-intake.js";
import { createRedisSchedules, type RedisSchedules } from "./redis-schedules.js";
import { createInstallationSlots, type InstallationSlots } from "./redis-slots.js";

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

/** A schedule's tick job: it enqueues the real job under the tick's id. */
export interface Tick<T> {
  scheduleId: string;
  template: ScheduledJob<T>;
}
export type QueueData<T> = JobInput<T> | Tick<T>;
export const TICK = "schedule-tick";
export const QUEUE_NAME = "jobs";

/** A job this process runs. */
export interface LocalJob<T> {
  job: EngineJob<T>;
  controller: AbortController;
}

/** One Redis engine's state, shared by its parts (key order, processor, worker, cancel, shutdown). */
export interface RedisState<T> {
  o: EngineSettings<T> & RedisEngineOptions<T> & { prefix: string; busyRetryMs: number; sweepMs: number };
  /** Our auto-pipelined connection; every connection opened is in `connections`, closed at shutdown. */
  redis: Redis;
  connections: Redis[];
  queue: Queue<QueueData<T>>;
  /** Our keys: `<prefix>:x:<parts>`. */
  k: (...parts: (string | number)[]) => string;
  /** This process's name among the workers: host, pid and a random part. */
  me: string;
  local: Map<string, LocalJob<T>>;
  /** Set by a shutdown: jobs claimed from then on are stopped before their handler. */
  closed: boolean;
  /** Jobs a shutdown stopped while they were being claimed (after it had aborted the running ones). */
  stoppedLate: EngineJob<T>[];
  slots: InstallationSlots;
  schedules: RedisSchedules<QueueData<T>>;
  intake: RedisIntake<T>;
  worker?: Worker<QueueData<T>>;
  timers: { heartbeat?: NodeJS.Timeout; sweeper?: NodeJS.Timeout };
  /** The outbox sweep under way, if any (one at a time). */
  sweeping: Promise<unknown> | null;
  report: (error: unknown) => void;
}

/** A job's id in BullMQ (and in its key's list and the outbox). */
export const bullId = (id: string) => `j${Buffer.from(id).toString("base64url")}`;

/**
 * Opens the engine's connections and queue, with its parts over them: installation slots, schedules, the intake.
 * Commands issued in one turn of the event loop go out in one write on our connection and the queue's (in a webhook
 * storm the receiver's ~550 commands were ~550 socket writes, a third of its busy time); not the worker's and the
 * subscriber's, whose blocking reads must not hold other commands back (see `connect`).
 */
export function openRedisState<T>(options: RedisEngineOptions<T>): RedisState<T> {
  const o = { ...ENGINE_DEFAULTS, prefix: "aider-bot", busyRetryMs: 5_000, sweepMs: 5_000, ...definedOnly(options) };
  const pipelined = () => new Redis(o.redisUrl, { maxRetriesPerRequest: null, enableAutoPipelining: true });
  const redis = pipelined();
  const queueConnection = pipelined();
  const k = (...parts: (string | number)[]) => [o.prefix, "x", ...parts].join(":");
  const queue = new Queue<QueueData<T>>(QUEUE_NAME, { connection: queueConnection, prefix: o.prefix });
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
  return {
    o,
    redis,
    connections: [redis, queueConnection],
    queue,
    k,
    me: `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`,
    local: new Map(),
    closed: false,
    stoppedLate: [],
    slots,
    schedules: createRedisSchedules<QueueData<T>>({ redis, queue, key: k, tickName: TICK, report }),
    intake,
    timers: {},
    sweeping: null,
    report,
  };
}

/** A connection of its own for a blocking reader (the worker, the cancel subscriber), closed at shutdown. */
export function connect<T>(s: RedisState<T>): Redis {
  const r = new Redis(s.o.redisUrl, { maxRetriesPerRequest: null });
  s.connections.push(r);
  return r;
}

export const asJob = <T>(p: JobInput<T>, b: BullJob): EngineJob<T> => ({
  id: p.id,
  key: p.key,
  installationId: p.installationId,
  kind: p.kind,
  data: p.data,
  attempt: b.attemptsMade + (b.stalledCounter ?? 0) + 1,
});

/** Calls the hook once per job across the cluster, whichever process noticed first. */
export async function abandonOnce<T>(s: RedisState<T>, job: EngineJob<T>, reason: AbandonReason): Promise<void> {
  const first = await s.redis.set(s.k("abandoned", job.id), "1", "EX", 86_400, "NX");
  if (first) await s.o.onAbandoned?.(job, reason);
}

/** Records left by a process that died before queueing them are queued; one sweep at a time (while Redis is
 * unreachable its commands wait for the reconnection instead of piling up). */
export function sweepOutbox<T>(s: RedisState<T>): void {
  s.sweeping ??= s.intake
    .sweep()
    .catch(s.report)
    .finally(() => (s.sweeping = null));
}
