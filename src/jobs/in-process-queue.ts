import type { JobHandler, JobQueue, QueuedJob } from "./job-queue.js";

/**
 * The default queue: in memory, FIFO per key (one job at a time per PR/issue), at most `concurrency` jobs in
 * total, deduplicated by delivery id, cancellable per key, with a graceful shutdown.
 */
export function createInProcessQueue<T>(options: { concurrency: number; handler: JobHandler<T>; onError?: (job: QueuedJob<T>, error: unknown) => void; maxRemembered?: number }): JobQueue<T> {
  const seen = new Set<string>();
  const waiting: QueuedJob<T>[] = [];
  const running = new Map<string, { job: QueuedJob<T>; controller: AbortController; done: Promise<void> }>();
  let closed = false;
  let idleWaiters: (() => void)[] = [];

  const checkIdle = () => {
    if (waiting.length === 0 && running.size === 0) {
      for (const w of idleWaiters) w();
      idleWaiters = [];
    }
  };

  const pump = () => {
    if (closed) return;
    for (let i = 0; i < waiting.length && running.size < options.concurrency; ) {
      const job = waiting[i]!;
      if (running.has(job.key)) {
        i++;
        continue;
      }
      waiting.splice(i, 1);
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
        if (waiting[i]!.key === key) {
          waiting.splice(i, 1);
          n++;
        }
      }
      const r = running.get(key);
      if (r) {
        r.controller.abort(new Error("cancelled"));
        n++;
      }
      checkIdle();
      return n;
    },
    idle() {
      if (waiting.length === 0 && running.size === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    async shutdown(timeoutMs) {
      closed = true;
      waiting.length = 0;
      const all = [...running.values()];
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        Promise.all(all.map((r) => r.done)).then(() => false),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs))),
      ]);
      clearTimeout(timer);
      if (!timedOut) return [];
      const cut = [...running.values()];
      for (const r of cut) r.controller.abort(new Error("shutting down"));
      await Promise.all(cut.map((r) => r.done));
      return cut.map((r) => r.job);
    },
    stats: () => ({ running: running.size, queued: waiting.length }),
  };
}
