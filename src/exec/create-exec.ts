import { spawn, type ChildProcess } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import type { Writable } from "node:stream";
import type { Exec, ExecRequest, ExecResult, WaitingProcess } from "./types.js";
import { baseEnv } from "./base-env.js";
import { createOutputCapture, type OutputCapture } from "./cap-output.js";
import { killTree } from "./kill-tree.js";
import { priorityArgv } from "./priority.js";
import { raiseToNormal } from "./raise-priority.js";

export interface ExecOptions {
  /** The environment the allow-list is taken from (config/env's `sourceEnv()`, passed in once by the caller). */
  sourceEnv: Readonly<Record<string, string | undefined>>;
  defaultTimeoutMs?: number;
  defaultMaxOutputBytes?: number;
}

/**
 * The single place that spawns processes: allow-listed env (never the parent's secrets), timeout that kills the
 * process tree, output capped (head + tail) in bounded memory, never throws for a non-zero exit.
 *
 * On Node's `spawn` directly: a run starts ten to twenty processes (git, the sandbox, the repository's commands),
 * and a general-purpose wrapper cost ~6 ms of CPU per process once warm and tens of milliseconds while its code was
 * still cold in a fresh job process, on the run's clock each time. A job process goes one step further and hands
 * the spawning to a small helper process (see `spawn-helper`), which runs the same {@link runProcess}.
 */
export function createExec(options: ExecOptions): Exec {
  const base = baseEnv(options.sourceEnv);
  return {
    run: (req) => runProcess(req, { ...base, ...req.env }, options),
    startWaiting: (req) => startWaitingProcess(req, { ...base, ...req.env }, options),
  };
}

/** The limits {@link runProcess} falls back to when a request sets none. */
export type ProcessDefaults = Pick<ExecOptions, "defaultTimeoutMs" | "defaultMaxOutputBytes">;

/**
 * Run one process with exactly `env` (the caller has applied the allow-list), in its own process group, and collect
 * its output; resolves for every ending (exit, timeout, abort, failure to start), never rejects.
 */
export function runProcess(
  req: ExecRequest,
  env: Record<string, string>,
  defaults: ProcessDefaults = {},
): Promise<ExecResult> {
  const started = Date.now();
  const argv = spawnArgv(req);
  const child = launch(req, argv, env, defaults, req.input === undefined ? "ignore" : "pipe");
  if (req.input !== undefined && child.process) {
    // A process that exits without reading its input closes the pipe: that is its business, not an error here.
    child.process.stdin?.on("error", () => undefined);
    child.process.stdin?.end(req.input);
  }
  return child.finish({ timeoutMs: req.timeoutMs ?? defaults.defaultTimeoutMs ?? 600_000, ...signals(req) }, started);
}

/** The request's cancel and raise signals, where it has them. */
function signals(req: Pick<ExecRequest, "signal" | "urgent">): Pick<ExecRequest, "signal" | "urgent"> {
  return { ...(req.signal ? { signal: req.signal } : {}), ...(req.urgent ? { urgent: req.urgent } : {}) };
}

/**
 * Start `req` as a process that waits on its fd 3 (a pipe this side holds) before it does its work: see
 * exec/waiting-process. Its output is collected from now; {@link WaitingProcess.hand} writes the line and arms the
 * timeout and the signals, as {@link runProcess} does at a start.
 */
export function startWaitingProcess(
  req: ExecRequest,
  env: Record<string, string>,
  defaults: ProcessDefaults = {},
): WaitingProcess {
  const child = launch(req, spawnArgv(req), env, defaults, "ignore", true);
  // Waiting, it must not keep this process alive (a sandbox started ahead and never used dies with this process:
  // bubblewrap's --die-with-parent); handed over, it does, as every running command does.
  const hold = (on: boolean) => {
    const p = child.process;
    if (!p) return;
    if (on) p.ref();
    else p.unref();
    for (const s of p.stdio) (s as (Writable & { ref?(): void; unref?(): void }) | null)?.[on ? "ref" : "unref"]?.();
  };
  hold(false);
  let handed = false;
  let discarded: Promise<void> | null = null;
  return {
    pid: child.process?.pid,
    hand: async (line, opts) => {
      if (handed || discarded || child.ended() || !child.process) return null;
      handed = true;
      hold(true);
      const started = Date.now();
      const fd3 = child.process.stdio[3] as Writable | null | undefined;
      // The process may end between the check above and this write (killed from outside): its result says so.
      fd3?.on("error", () => undefined);
      fd3?.end(`${line}\n`);
      return child.finish(
        { timeoutMs: opts.timeoutMs ?? req.timeoutMs ?? defaults.defaultTimeoutMs ?? 600_000, ...signals(opts) },
        started,
      );
    },
    discard: () =>
      (discarded ??= (async () => {
        if (handed) return;
        // Held while it ends: a caller awaiting its end must not see this process exit first.
        hold(true);
        if (child.process?.pid !== undefined && !child.ended()) killTree(child.process.pid);
        await child.closed;
      })()),
  };
}

interface Launched {
  /** Null when Node refused to start it (the result then says why). */
  process: ChildProcess | null;
  ended(): boolean;
  /** Resolves when the process has ended and its output is read (whether or not `finish` was called). */
  closed: Promise<void>;
  /** Arm the timeout, the cancel and the raise, and resolve with the result at the process's end. */
  finish(opts: { timeoutMs: number } & Pick<ExecRequest, "signal" | "urgent">, started: number): Promise<ExecResult>;
}

/**
 * Spawn `argv` in its own process group and collect its output from the first byte; with `fd3`, a pipe on its fd 3
 * too. Nothing is armed until `finish`.
 */
function launch(
  req: Pick<ExecRequest, "cwd" | "maxOutputBytes">,
  argv: { command: string; args: string[]; shell: boolean },
  env: Record<string, string>,
  defaults: ProcessDefaults,
  stdin: "ignore" | "pipe",
  fd3 = false,
): Launched {
  const maxBytes = req.maxOutputBytes ?? defaults.defaultMaxOutputBytes ?? 1_000_000;
  const all = createOutputCapture(maxBytes);
  const out = createOutputCapture(maxBytes);
  const err = createOutputCapture(maxBytes);
  let child: ChildProcess;
  try {
    child = spawn(argv.command, argv.args, {
      cwd: req.cwd,
      shell: argv.shell,
      env,
      // Own process group, so a timeout kills the whole tree (a shell and what it started), not just the shell.
      detached: true,
      stdio: fd3 ? [stdin, "pipe", "pipe", "pipe"] : [stdin, "pipe", "pipe"],
    });
  } catch (error) {
    // Arguments Node refuses outright (a NUL byte in an argument): the command could not be started.
    const spawnError = error instanceof Error ? error.message : String(error);
    return {
      process: null,
      ended: () => true,
      closed: Promise.resolve(),
      finish: async (_, s) => notStarted(s, spawnError),
    };
  }
  // stdout and stderr are spawned as pipes; Node's types cannot see it through the conditional stdio.
  const endOut = collect(child.stdout!, out, all);
  const endErr = collect(child.stderr!, err, all);
  let spawnError: string | undefined;
  child.once("error", (error) => {
    spawnError ??= error.message;
  });
  let ended = false;
  let timedOut = false;
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => {
      ended = true;
      endOut();
      endErr();
      resolve({ code, signal });
    }),
  );
  return {
    process: child,
    ended: () => ended,
    closed: closed.then(() => undefined),
    finish: async (opts, started) => {
      // Not once it has ended: its process id may be another process's by then.
      const kill = () => {
        if (child.pid !== undefined && !ended) killTree(child.pid);
      };
      const timer = setTimeout(() => {
        timedOut = true;
        kill();
      }, opts.timeoutMs);
      opts.signal?.addEventListener("abort", kill, { once: true });
      if (opts.signal?.aborted) kill();
      // The run now waits for this background command: back to normal priority where the host allows it (the sandbox
      // sets the priority inside bubblewrap: its processes are this one's descendants too).
      const raise = () => child.pid !== undefined && raiseToNormal(child.pid);
      opts.urgent?.addEventListener("abort", raise, { once: true });
      if (opts.urgent?.aborted) raise();
      const { code, signal } = await closed;
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", kill);
      opts.urgent?.removeEventListener("abort", raise);
      // Killed by a signal other than our timeout (a cancel, the OOM killer): said as such, like a failed start.
      if (signal && !timedOut) spawnError ??= `the command was killed by ${signal}`;
      return {
        // Node gives -2 for a command that never started; a signal death has no code anyway.
        exitCode: spawnError !== undefined ? null : code,
        output: all.text(),
        stdout: out.text(),
        stderr: err.text(),
        timedOut,
        durationMs: Date.now() - started,
        ...(spawnError !== undefined ? { spawnError } : {}),
      };
    },
  };
}

/** The result of a process that never started (Node refused it, or it was not run), and why. */
export function notStarted(started: number, spawnError: string): ExecResult {
  return {
    exitCode: null,
    output: "",
    stdout: "",
    stderr: "",
    timedOut: false,
    durationMs: Date.now() - started,
    spawnError,
  };
}

/**
 * Decode `stream` into `into` and the interleaved `all` as it arrives (a character split across chunks stays whole);
 * the function returned flushes what the decoder still holds.
 */
function collect(stream: NodeJS.ReadableStream, into: OutputCapture, all: OutputCapture): () => void {
  const decoder = new StringDecoder("utf8");
  stream.on("data", (chunk: Buffer) => {
    const text = decoder.write(chunk);
    into.push(text);
    all.push(text);
  });
  return () => {
    const rest = decoder.end();
    into.push(rest);
    all.push(rest);
  };
}

/** What to spawn: the request as it is, or a background command behind its priority prologue (see exec/priority). */
function spawnArgv(req: ExecRequest): { command: string; args: string[]; shell: boolean } {
  if (req.priority !== "background")
    return { command: req.command, args: [...(req.args ?? [])], shell: req.shell ?? false };
  // The shell form as `/bin/sh -c`, as Node runs it.
  const inner = req.shell ? ["/bin/sh", "-c", req.command] : [req.command, ...(req.args ?? [])];
  const [command, ...args] = priorityArgv(inner, req.priority, { autogroup: true });
  return { command: command!, args, shell: false };
}
