// Hand-written, kept (docs/performance.md "Libraries and hand-written code"): not benchmarked against
// tinypool's child_process runtime, because tinypool cannot do what a job needs: its own environment (nothing
// inherited), its own heap limit, a stop message then a kill after a grace period, and the parent's answers (the spend
// ledger) over IPC. Its tasks share one environment and have none of the rest.
import { fork, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * What the module run in the child exports: `runChildJob(input, signal, send, request)`; its resolved value goes back.
 * `request` asks the parent (its `onRequest`) and resolves with the answer: how a job reaches what only the parent
 * holds (the spend ledger), without holding its credentials.
 */
export type ChildJob<I = unknown, R = unknown> = (
  input: I,
  signal: AbortSignal,
  send: (message: unknown) => void,
  request: (message: unknown) => Promise<unknown>,
) => Promise<R>;

export interface ForkWorkerOptions {
  /** Absolute path of the module whose named export `runChildJob` (a {@link ChildJob}) runs the job. */
  module: string;
  /** Structured-cloneable input: the job's data and only what the job needs (never the webhook secret or App key). */
  input: unknown;
  /** Aborting it asks the child to stop (a message), then kills it after `graceMs`. */
  signal: AbortSignal;
  graceMs: number;
  /** The child's whole environment: nothing of the parent's is inherited. */
  env: Record<string, string>;
  /** Node flags for the child, e.g. a heap limit; `["--import", "tsx"]` to run TypeScript sources. */
  execArgv?: string[];
  /** Heap limit of the child: a job that blows it fails alone. */
  maxOldSpaceMb?: number;
  /** Discard the child's stdout and stderr instead of sharing the parent's (default: shared, so its logs flow). */
  quiet?: boolean;
  /** Messages the child sends while it runs (progress). */
  onMessage?: (message: unknown) => void;
  /** Answers the child's requests (its `request`); a throw is answered as a failure with the error's message. */
  onRequest?: (message: unknown) => Promise<unknown>;
}

export type ForkOutcome =
  | { kind: "done"; result: unknown }
  /** `runChildJob` threw: its message. */
  | { kind: "failed"; message: string }
  /** The child died without an answer (crash, out of memory, killed after a stop it ignored). */
  | { kind: "crashed"; message: string; code: number | null; signal: NodeJS.Signals | null };

type FromChild =
  | { type: "done"; result: unknown }
  | { type: "failed"; message: string }
  | { type: "message"; message: unknown }
  | { type: "request"; id: number; message: unknown };

/**
 * The child's entry in exec/: `.js` when built, `.ts` when run from sources (tsx, jest). Named from the folder
 * above, so the lookup holds from this file and from a bundle's chunk (scripts/bundle.mjs) alike.
 */
function childEntry(): string {
  const js = fileURLToPath(new URL("../exec/fork-worker-child.js", import.meta.url));
  return existsSync(js) ? js : js.replace(/\.js$/, ".ts");
}

/** How job processes are started: the same for every job of a pool (see {@link createForkPool}). */
export type ForkSpawnOptions = Pick<ForkWorkerOptions, "env" | "execArgv" | "maxOldSpaceMb" | "quiet">;

/** One started job process, possibly still loading its module. */
interface Started {
  child: ChildProcess;
  spawned: Promise<boolean>;
}

function start(options: ForkSpawnOptions, preload?: string): Started {
  const execArgv = [
    ...(options.execArgv ?? []),
    ...(options.maxOldSpaceMb ? [`--max-old-space-size=${options.maxOldSpaceMb}`] : []),
  ];
  const child = fork(childEntry(), [], {
    env: options.env,
    execArgv,
    serialization: "advanced",
    stdio: options.quiet ? ["ignore", "ignore", "ignore", "ipc"] : ["ignore", "inherit", "inherit", "ipc"],
  });
  const spawned = new Promise<boolean>((resolve) => {
    child.once("spawn", () => {
      // Load the job's module (and whatever it warms) now, so a job handed to this process starts at once.
      if (preload) child.send({ type: "preload", module: preload });
      resolve(true);
    });
    child.once("error", () => resolve(false));
  });
  return { child, spawned };
}

/**
 * Runs one job in a child Node process, so its CPU spikes, crashes and memory blow-ups stay out of the parent's
 * event loop. The input travels over IPC (never argv or env); a stop is a message, then SIGKILL after the grace.
 */
export function forkWorker(options: ForkWorkerOptions): Promise<ForkOutcome> {
  return runIn(start(options), options);
}

export interface ForkPool {
  /** Run one job in the ready process (started ahead with the same env and flags), or in a new one. */
  run(options: Omit<ForkWorkerOptions, keyof ForkSpawnOptions>): Promise<ForkOutcome>;
  /** The idle process's pid, if one is ready (for logs and tests). */
  idlePid(): number | undefined;
  /** Kill the idle process; running jobs are not touched. */
  close(): void;
}

/**
 * Job processes started one ahead (the first when the pool is made): a Node process with the job module already imported waits, idle and unreferenced,
 * for the next job, so a job does not pay Node's start and the module load (about a second) on its own clock. Each
 * process still runs one job and exits. The next spare starts when the job that took the last one ends, or
 * `refillDelayMs` (default 3 s) after it began, whichever comes first: started at once, its ~1 s of start-up CPU
 * (module load, tokenizer tables, sandbox probe) competed with that job's clone and map on a small machine. An idle
 * spare that dies is replaced only when the next job comes (a spare that cannot start never loops). With `spare: false`
 * no process is kept: each job's starts with it.
 */
export function createForkPool(
  spawn: ForkSpawnOptions & { module: string; refillDelayMs?: number; spare?: boolean },
): ForkPool {
  let spare: Started | null = null;
  let closed = false;
  let refill: { timer: NodeJS.Timeout; go(): void } | null = null;
  const refillAfter = (job: Started) => {
    if (refill || spawn.spare === false) return;
    const go = () => {
      if (refill !== entry) return;
      clearTimeout(entry.timer);
      refill = null;
      if (!closed && !spare) startSpare();
    };
    const entry = { timer: setTimeout(go, spawn.refillDelayMs ?? 3_000), go };
    entry.timer.unref();
    refill = entry;
    job.child.once("exit", go);
  };
  const startSpare = () => {
    const s = start(spawn, spawn.module);
    // Idle, it must not keep the app alive (tests, a CLI run, shutdown); a job makes it count again.
    s.child.unref();
    s.child.channel?.unref();
    s.child.once("exit", () => {
      if (spare === s) spare = null;
    });
    // A spare that cannot start is seen when taken (its job falls back to a fresh process).
    s.child.on("error", () => undefined);
    spare = s;
  };
  if (spawn.spare !== false) startSpare();
  return {
    run(options) {
      if (closed) return forkWorker({ ...spawn, ...options });
      const taken = spare && spare.child.exitCode === null && spare.child.signalCode === null ? spare : null;
      spare = null;
      const started = taken ?? start(spawn, spawn.module);
      started.child.ref();
      started.child.channel?.ref();
      refillAfter(started);
      return runIn(started, { ...spawn, ...options });
    },
    idlePid: () => spare?.child.pid,
    close() {
      closed = true;
      if (refill) clearTimeout(refill.timer);
      refill = null;
      spare?.child.kill("SIGKILL");
      spare = null;
    },
  };
}

function runIn(started: Started, options: ForkWorkerOptions): Promise<ForkOutcome> {
  const { child } = started;
  return new Promise<ForkOutcome>((resolve) => {
    let answer: ForkOutcome | null = null;
    let killTimer: NodeJS.Timeout | undefined;
    const stop = () => {
      // The typed reason crosses the process boundary (a cancel and a shutdown end a run differently).
      const reason =
        (options.signal.reason as { reason?: unknown } | null | undefined)?.reason === "shutdown"
          ? "shutdown"
          : "cancel";
      if (child.connected) child.send({ type: "stop", reason });
      killTimer = setTimeout(() => child.kill("SIGKILL"), options.graceMs);
    };
    child.on("message", (m: FromChild) => {
      if (m.type === "message") options.onMessage?.(m.message);
      else if (m.type === "request") answerRequest(child, m, options.onRequest);
      else if (m.type === "done") answer = { kind: "done", result: m.result };
      else if (m.type === "failed") answer = { kind: "failed", message: m.message };
    });
    child.on("error", (error) => {
      // fork failed (or IPC broke): the exit event follows when there was a process; without one, answer now.
      if (child.pid === undefined)
        resolve({
          kind: "crashed",
          message: `could not start the job process: ${error.message}`,
          code: null,
          signal: null,
        });
    });
    const exited = (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(killTimer);
      options.signal.removeEventListener("abort", stop);
      resolve(
        answer ?? {
          kind: "crashed",
          code,
          signal,
          message: signal
            ? `the job process was killed by ${signal}${signal === "SIGKILL" && !options.signal.aborted ? " (out of memory?)" : ""}`
            : `the job process exited with code ${code} without an answer`,
        },
      );
    };
    // A spare may have died while idle: its exit has been and gone.
    if (child.exitCode !== null || child.signalCode !== null) return exited(child.exitCode, child.signalCode);
    child.once("exit", exited);
    void started.spawned.then((ok) => {
      if (!ok || child.exitCode !== null) return;
      child.send({ type: "run", module: options.module, input: options.input });
      if (options.signal.aborted) stop();
      else options.signal.addEventListener("abort", stop, { once: true });
    });
  });
}

/** Answer one request of a child: the handler's value, or its failure's message (never a stack). */
function answerRequest(
  child: ChildProcess,
  m: { id: number; message: unknown },
  handler: ForkWorkerOptions["onRequest"],
): void {
  const reply = (body: { ok: true; result: unknown } | { ok: false; message: string }) => {
    if (child.connected) child.send({ type: "reply", id: m.id, ...body });
  };
  if (!handler) return reply({ ok: false, message: "the parent answers no requests" });
  handler(m.message).then(
    (result) => reply({ ok: true, result }),
    (error: unknown) => reply({ ok: false, message: error instanceof Error ? error.message : String(error) }),
  );
}
