import { fork } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { baseEnv } from "./base-env.js";
import { createExec, startWaitingProcess, type ExecOptions, type ProcessDefaults } from "./create-exec.js";
import type { Exec, ExecRequest, ExecResult, WaitingProcess } from "./types.js";

/** What the parent sends the helper: a process to run (its env already allow-listed), or a kill of one running. */
export type HelperRequest =
  | {
      type: "run";
      id: number;
      req: Omit<ExecRequest, "signal" | "urgent" | "env">;
      env: Record<string, string>;
      defaults: ProcessDefaults;
    }
  /** Start a process that waits on its fd 3 (see exec/waiting-process); nothing is answered until it is handed over or discarded. */
  | {
      type: "wait";
      id: number;
      req: Omit<ExecRequest, "signal" | "urgent" | "env">;
      env: Record<string, string>;
      defaults: ProcessDefaults;
    }
  /** Hand the waiting process its line: answered with its result (null: it had ended before). */
  | { type: "hand"; id: number; line: string; timeoutMs?: number }
  /** Kill the waiting process unused: answered (null) once it has ended. */
  | { type: "discard"; id: number }
  | { type: "kill"; id: number }
  /** The request's `urgent` fired: raise the background command back to normal priority. */
  | { type: "urgent"; id: number };

/** What the helper answers, once per run. */
export type HelperAnswer = { type: "done"; id: number; result: ExecResult | null };

/** A helper process that starts processes for this one; each {@link SpawnHelper.exec} is an exec over it. */
export interface SpawnHelper {
  /** The {@link createExec} contract, with this exec's own allow-listed environment, its processes started by the helper. */
  exec(options: ExecOptions): Exec;
  /** End the helper (it also ends with this process); later runs spawn here. */
  close(): void;
  /** The helper's pid while it runs (tests, logs). */
  pid(): number | undefined;
}

/** The parent's side of a process the helper started waiting (`wait`), driven through `ask`. */
function helperWaiting(
  id: number,
  ask: (message: HelperRequest, signals?: Pick<ExecRequest, "signal" | "urgent">) => Promise<ExecResult | null> | null,
): WaitingProcess {
  let discarded: Promise<void> | null = null;
  let handed = false;
  return {
    pid: undefined,
    hand: async (line, opts) => {
      if (handed || discarded) return null;
      handed = true;
      const { signal, urgent } = opts;
      const message: HelperRequest = {
        type: "hand",
        id,
        line,
        ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
      };
      return (await ask(message, { ...(signal ? { signal } : {}), ...(urgent ? { urgent } : {}) })) ?? null;
    },
    discard: () =>
      (discarded ??= (async () => {
        if (!handed) await ask({ type: "discard", id });
      })()),
  };
}

/** The helper's entry: `.js` when built, `.ts` (through tsx) when run from sources, as fork-worker does. */
function helperEntry(): { file: string; execArgv: string[] } {
  const js = fileURLToPath(new URL("../exec/spawn-helper-child.js", import.meta.url));
  return existsSync(js)
    ? { file: js, execArgv: [] }
    : { file: js.replace(/\.js$/, ".ts"), execArgv: ["--import", "tsx"] };
}

/**
 * Start a small helper Node process that starts this process's child processes. Why: starting a process copies the
 * starting process's memory map and write-protects its pages, and on a virtual machine each page written afterwards
 * pays a fault. A job process holds a large, busy heap (the tokenizer's table, tree-sitter, its freshly compiled
 * code), so each of a run's dozen starts blocked its event loop for 20–45 ms; the idle helper starts them in ~5 ms.
 *
 * The helper runs {@link runProcess} (timeouts, output caps, process groups) with the environment each exec computes
 * here from its own allow-list, and kills every process still running when its parent disconnects, so nothing
 * outlives a killed job process. Should the helper fail to start or die, the runs in flight end as processes that
 * could not start, with the reason, and later runs spawn here, as {@link createExec} does.
 *
 * @param source The environment the helper's own allow-listed one is taken from (`baseEnv`); its children get
 *   their exec's.
 */
export function startSpawnHelper(source: Readonly<Record<string, string | undefined>>): SpawnHelper {
  const pending = new Map<number, (result: ExecResult | null) => void>();
  let nextId = 1;
  /** Why the helper can no longer be used (it failed, died or was closed); runs then spawn here. */
  let broken: string | null = null;

  const fail = (why: string) => {
    if (broken) return;
    broken = why;
    for (const [id, resolve] of pending) {
      pending.delete(id);
      resolve({ exitCode: null, output: "", stdout: "", stderr: "", timedOut: false, durationMs: 0, spawnError: why });
    }
  };
  const entry = helperEntry();
  const child = fork(entry.file, [], {
    env: baseEnv(source),
    execArgv: entry.execArgv,
    serialization: "advanced",
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  child.on("message", (m: HelperAnswer) => {
    const resolve = pending.get(m.id);
    if (!resolve) return;
    pending.delete(m.id);
    if (pending.size === 0) child.channel?.unref();
    resolve(m.result);
  });
  child.on("error", (error) => fail(`the process helper failed: ${error.message}`));
  child.on("exit", (code, signal) =>
    fail(`the process helper exited (${signal ?? `code ${code}`}) while the command ran`),
  );
  // Idle, the helper must not keep this process alive; a run in flight refs its channel (below).
  child.unref();
  child.channel?.unref();

  /** Send `message` and wait for its answer, with the request's cancel and raise passed on; null: the helper is gone. */
  const ask = (
    message: HelperRequest,
    signals: Pick<ExecRequest, "signal" | "urgent"> = {},
  ): Promise<ExecResult | null> | null => {
    if (broken || !child.connected) return null;
    const { id } = message;
    const { signal, urgent } = signals;
    return new Promise<ExecResult | null>((resolve) => {
      const kill = () => {
        if (child.connected) child.send({ type: "kill", id } satisfies HelperRequest);
      };
      const raise = () => {
        if (child.connected) child.send({ type: "urgent", id } satisfies HelperRequest);
      };
      pending.set(id, (result) => {
        signal?.removeEventListener("abort", kill);
        urgent?.removeEventListener("abort", raise);
        resolve(result);
      });
      child.channel?.ref();
      child.send(message);
      if (signal?.aborted) kill();
      else signal?.addEventListener("abort", kill, { once: true });
      if (urgent?.aborted) raise();
      else urgent?.addEventListener("abort", raise, { once: true });
    });
  };

  /** A waiting process started by the helper (see exec/waiting-process), or null when the helper is gone. */
  const wait = (req: ExecRequest, env: Record<string, string>, defaults: ProcessDefaults): WaitingProcess | null => {
    if (broken || !child.connected) return null;
    const id = nextId++;
    const { signal: _s, urgent: _u, env: _extra, ...rest } = req;
    child.send({ type: "wait", id, req: rest, env, defaults } satisfies HelperRequest);
    return helperWaiting(id, ask);
  };

  return {
    exec(options) {
      const base = baseEnv(options.sourceEnv);
      const defaults: ProcessDefaults = {
        defaultTimeoutMs: options.defaultTimeoutMs,
        defaultMaxOutputBytes: options.defaultMaxOutputBytes,
      };
      const local = createExec(options);
      return {
        run: (req) => {
          const { signal, urgent, env: _extra, ...rest } = req;
          const message = { type: "run", id: nextId++, req: rest, env: { ...base, ...req.env }, defaults } as const;
          // A run is always answered with a result (a failed helper answers with why).
          return (ask(message, { signal, urgent }) as Promise<ExecResult> | null) ?? local.run(req);
        },
        startWaiting: (req) =>
          wait(req, { ...base, ...req.env }, defaults) ?? startWaitingProcess(req, { ...base, ...req.env }, defaults),
      };
    },
    close() {
      fail("the process helper was closed");
      if (child.connected) child.disconnect();
    },
    pid: () => (broken ? undefined : child.pid),
  };
}
