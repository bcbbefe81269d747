import type { Job } from "./job.js";
import type { CutOffReason, JobHandler, JobQueue } from "./job-queue.js";

export interface InProcessQueueOptions<T> {
  /** Jobs running at once, across all keys. */
  concurrency: number;
  handler: JobHandler<T>;
  /** A handler threw: the job is over (expected failures are results, so this is a bug or an outage). */
  onError?: (job: Job<T>, error: unknown) => void;
  /** A job was stopped by shutdown: dropped before it started, or aborted after the grace period. */
  onCutOff?: (job: Job<T>, reason: CutOffReason) => void;
  /** How many delivery ids are remembered for dedupe (oldest forgotten first). */
  maxRemembered?: number;
}

interface Running<T> {
  job: Job<T>;
  controller: AbortController;
  done: Promise<void>;
}

/**
 * The default queue: in memory, FIFO per key (one job at a time per PR/issue), at most `concurrency` jobs in
 * total, deduplicated by delivery id, cancellable per key, with drain and a bounded graceful shutdown.
 * Jobs are lost on a crash: state that matters (the status comment, the branch) lives in GitHub.
 */
export function createInProcessQueue<T>(options: InProcessQueueOptions<T>): JobQueue<T> {
  const limit = Math.max(1, Math.floor(options.concurrency));
  const seen = new Set<string>();
  const waiting: Job<T>[] = [];
  const running = new Map<string, Running<T>>();
  let closed = false;
  let stopping = false;
  let idleWaiters: (() => void)[] = [];

  const checkIdle = () => {
    if (waiting.length > 0 || running.size > 0) return;
    const ws = idleWaiters;
    idleWaiters = [];
    for (const w of ws) w();
  };
  const idle = () => (waiting.length === 0 && running.size === 0 ? Promise.resolve() : new Promise<void>((r) => idleWaiters.push(r)));

  const start = (job: Job<T>) => {
    const controller = new AbortController();
    const done = (async () => {
      try {
        await options.handler(job, controller.signal);
      } catch (error) {
        options.onError?.(job, error);
      } finally {
        running.delete(job.key);
        pump();
        checkIdle();
      }
    })();
    running.set(job.key, { job, controller, done });
  };

  // Start the oldest waiting job of every key that is not busy, until the global limit is reached.
  const pump = () => {
    if (stopping) return;
    for (let i = 0; i < waiting.length && running.size < limit; ) {
      const job = waiting[i]!;
      if (running.has(job.key)) {
        i++;
        continue;
      }
      waiting.splice(i, 1);
      start(job);
    }
  };

  return {
    enqueue(job) {
      if (closed || seen.has(job.id)) return false;
      seen.add(job.id);
      if (seen.size > (options.maxRemembered ?? 10_000)) seen.delete(seen.values().next().value!);
      waiting.push(job);
      pump();
      return true;
    },
    seen: (id) => seen.has(id),
    cancel(key) {
      let n = 0;
      for (let i = waiting.length - 1; i >= 0; i--) {
        if (waiting[i]!.key !== key) continue;
        waiting.splice(i, 1);
        n++;
      }
      const r = running.get(key);
      if (r && !r.controller.signal.aborted) {
        r.controller.abort(new Error("cancelled"));
        n++;
      }
      checkIdle();
      return n;
    },
    idle,
    drain() {
      closed = true;
      return idle();
    },
    async shutdown(timeoutMs) {
      closed = true;
      stopping = true;
      const dropped = waiting.splice(0);
      for (const job of dropped) options.onCutOff?.(job, "dropped");
      checkIdle();
      const finished = await within(Promise.all([...running.values()].map((r) => r.done)), timeoutMs);
      if (finished) return dropped;
      const cut = [...running.values()];
      // The reason's wording matters: run-job tells "shut down" apart from a user's cancel by it.
      for (const r of cut) r.controller.abort(new Error("shutting down"));
      // A handler that ignores its signal must not hold the process forever: give it one more grace period.
      await within(Promise.all(cut.map((r) => r.done)), timeoutMs);
      for (const r of cut) options.onCutOff?.(r.job, "aborted");
      return [...dropped, ...cut.map((r) => r.job)];
    },
    stats: () => ({ running: running.size, queued: waiting.length }),
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
