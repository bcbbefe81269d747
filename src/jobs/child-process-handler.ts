import { forkWorker, type ForkWorkerOptions } from "../exec/fork-worker.js";
import type { EngineJob, JobHandler } from "./job-engine.js";

export interface ChildProcessHandlerOptions<T> extends Omit<ForkWorkerOptions, "input" | "signal" | "onMessage"> {
  /** What the child receives for a job: the job plus what the handler factory provides (no secrets it does not need). */
  input?: (job: EngineJob<T>) => unknown;
  onMessage?: (job: EngineJob<T>, message: unknown) => void;
}

/**
 * A job handler that runs each job in its own child process. A throw or a crash of the child is a crash of the job
 * (the engine retries it or hands it to `onAbandoned`); the rest of the worker goes on.
 */
export function childProcessHandler<T>(options: ChildProcessHandlerOptions<T>): JobHandler<T> {
  return async (job, signal) => {
    const outcome = await forkWorker({
      ...options,
      input: options.input ? options.input(job) : job,
      signal,
      onMessage: options.onMessage && ((m) => options.onMessage!(job, m)),
    });
    if (outcome.kind === "done") return;
    // Stopped on purpose (cancel or shutdown): how the child ended is not a crash; the engine reads the signal.
    if (signal.aborted) return;
    throw new Error(`job ${job.id} (${job.key}): ${outcome.message}`);
  };
}
