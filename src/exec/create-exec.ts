import { spawn, type ChildProcess } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import type { Exec, ExecRequest, ExecResult } from "./types.js";
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
  const maxBytes = req.maxOutputBytes ?? defaults.defaultMaxOutputBytes ?? 1_000_000;
  const timeoutMs = req.timeoutMs ?? defaults.defaultTimeoutMs ?? 600_000;
  const all = createOutputCapture(maxBytes);
  const out = createOutputCapture(maxBytes);
  const err = createOutputCapture(maxBytes);
  return new Promise<ExecResult>((resolve) => {
    let child: ChildProcess;
    const argv = spawnArgv(req);
    try {
      child = spawn(argv.command, argv.args, {
        cwd: req.cwd,
        shell: argv.shell,
        env,
        // Own process group, so a timeout kills the whole tree (a shell and what it started), not just the shell.
        detached: true,
        stdio: [req.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      });
    } catch (error) {
      // Arguments Node refuses outright (a NUL byte in an argument): the command could not be started.
      const spawnError = error instanceof Error ? error.message : String(error);
      return resolve({
        exitCode: null,
        output: "",
        stdout: "",
        stderr: "",
        timedOut: false,
        durationMs: Date.now() - started,
        spawnError,
      });
    }
    // stdout and stderr each decoded on their own (a character split across chunks stays whole), and both into
    // the interleaved `output` as they arrive.
    const collect = (stream: NodeJS.ReadableStream, into: OutputCapture) => {
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
    };
    // stdout and stderr are spawned as pipes (stdin only with input, below); Node's types cannot see it through the
    // conditional stdio.
    const endOut = collect(child.stdout!, out);
    const endErr = collect(child.stderr!, err);
    let spawnError: string | undefined;
    child.once("error", (error) => {
      spawnError ??= error.message;
    });
    if (req.input !== undefined) {
      // A process that exits without reading its input closes the pipe: that is its business, not an error here.
      child.stdin?.on("error", () => undefined);
      child.stdin?.end(req.input);
    }
    let timedOut = false;
    const kill = () => {
      if (child.pid !== undefined) killTree(child.pid);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    req.signal?.addEventListener("abort", kill, { once: true });
    if (req.signal?.aborted) kill();
    // The run now waits for this background command: back to normal priority where the host allows it (the sandbox
    // sets the priority inside bubblewrap: its processes are this one's descendants too).
    const raise = () => child.pid !== undefined && raiseToNormal(child.pid);
    req.urgent?.addEventListener("abort", raise, { once: true });
    if (req.urgent?.aborted) raise();
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      req.signal?.removeEventListener("abort", kill);
      req.urgent?.removeEventListener("abort", raise);
      endOut();
      endErr();
      // Killed by a signal other than our timeout (a cancel, the OOM killer): said as such, like a failed start.
      if (signal && !timedOut) spawnError ??= `the command was killed by ${signal}`;
      resolve({
        // Node gives -2 for a command that never started; a signal death has no code anyway.
        exitCode: spawnError !== undefined ? null : code,
        output: all.text(),
        stdout: out.text(),
        stderr: err.text(),
        timedOut,
        durationMs: Date.now() - started,
        ...(spawnError !== undefined ? { spawnError } : {}),
      });
    });
  });
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
