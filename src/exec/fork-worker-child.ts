// The entry of a job process started by fork-worker.ts: waits for the job over IPC, runs it, answers, exits.
import { JobStopped, type StopReason } from "./job-stopped.js";
import type { ChildJob } from "./fork-worker.js";

type FromParent =
  | { type: "preload"; module: string }
  | { type: "run"; module: string; input: unknown }
  | { type: "stop"; reason: StopReason }
  | { type: "reply"; id: number; ok: boolean; result?: unknown; message?: string };
type JobModule = { runChildJob?: ChildJob; preload?: () => Promise<unknown> };

/** A spare process (see createForkPool) imports the job module ahead, and runs its `preload` if it has one. */
let preloaded: { module: string; mod: Promise<JobModule> } | null = null;
const load = (module: string): Promise<JobModule> =>
  preloaded?.module === module ? preloaded.mod : (import(module) as Promise<JobModule>);

const controller = new AbortController();

/** A message to the parent, over the IPC channel fork() opened (this file runs only as fork-worker.ts's child). */
function toParent(message: unknown, sent?: () => void): void {
  if (!process.send) throw new Error("the job process has no IPC channel: it must be started by fork-worker.ts");
  if (sent) process.send(message, sent);
  else process.send(message);
}

/** The job's requests to the parent still waiting for their answer. */
const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
let nextRequest = 0;
const request = (message: unknown) =>
  new Promise<unknown>((resolve, reject) => {
    const id = ++nextRequest;
    pending.set(id, { resolve, reject });
    toParent({ type: "request", id, message });
  });

// The parent died (SIGKILL, crash): its lease runs out and the job runs again elsewhere, so this copy must stop now
// rather than push or comment beside the re-run. Its own children are killed by the aborted exec.
process.on("disconnect", () => {
  for (const p of pending.values()) p.reject(new Error("the parent process went away"));
  pending.clear();
  if (!controller.signal.aborted) controller.abort(new JobStopped("shutdown"));
  setTimeout(() => process.exit(1), 2_000).unref();
});

const answer = (message: unknown) =>
  new Promise<void>((resolve) => {
    toParent(message, () => resolve());
  });

process.on("message", (m: FromParent) => {
  if (m.type === "reply") {
    const waiting = pending.get(m.id);
    pending.delete(m.id);
    if (m.ok) waiting?.resolve(m.result);
    else waiting?.reject(new Error(m.message ?? "the parent refused the request"));
    return;
  }
  if (m.type === "stop") {
    controller.abort(new JobStopped(m.reason === "shutdown" ? "shutdown" : "cancel"));
    return;
  }
  if (m.type === "preload") {
    const mod = import(m.module) as Promise<JobModule>;
    preloaded = { module: m.module, mod };
    // A failed import is answered when the job comes (the run awaits the same promise); a failed warm-up only
    // leaves the job to do that work itself.
    void mod.then((x) => x.preload?.()).catch(() => undefined);
    return;
  }
  void (async () => {
    try {
      const mod = await load(m.module);
      if (typeof mod.runChildJob !== "function") throw new Error(`${m.module} does not export runChildJob`);
      const result = await mod.runChildJob(
        m.input,
        controller.signal,
        (message) => toParent({ type: "message", message }),
        request,
      );
      await answer({ type: "done", result });
    } catch (error) {
      await answer({ type: "failed", message: error instanceof Error ? error.message : String(error) });
    }
    process.disconnect();
    // Handles the job left open (timers, sockets) must not keep a finished job process alive.
    process.exit(0);
  })();
});
