import { realpathSync } from "node:fs";
import path from "node:path";
import {
  CACHE_ENV,
  execArgs,
  type ContainerEgress,
  type ContainerEngine,
  type ContainerSpec,
} from "./container-engine.js";
import { RUNNER_SCRIPT, startContainerRunner, type ContainerRunner } from "./container-runner.js";
import { INSTALL_QUIET_ENV } from "./install-quiet-env.js";
import { priorityArgv } from "./priority.js";
import type { ContainerTarget, Exec, ExecRequest, ExecResult } from "./types.js";

/**
 * Running one command in a job's container (see container-sandbox.ts for the container's life): through the job's
 * runner session, or as an engine `exec` of its own; only ever in the checkout the container has mounted.
 */

/** The egress bridge as a container takes it. */
export interface ContainerBridge extends ContainerEgress {
  env: Readonly<Record<string, string>>;
  /** The command, once the forwarder listens. */
  wrap(inner: readonly string[]): string[];
}

/** What a command needs of its job's container session. */
export interface SessionParts {
  exec: Exec;
  engine: ContainerEngine;
  program: string;
  /** The engine's global arguments, before every subcommand. */
  base: string[];
  target: ContainerTarget;
  spec: ContainerSpec;
  checkout: string;
  /** The runner's scripts and outputs (only with `clientEnv`). */
  controlDir: string | undefined;
  engineRun(args: string[], timeoutMs: number): Promise<ExecResult>;
  /** The start under way or done (null: not started, or failed), the runner session, and whether `close()` ran. */
  live: { running: Promise<string | null> | null; runner: ContainerRunner | null; closed: boolean };
  /** The egress bridge of the running container (set when it starts). */
  bridge: { resolve?: () => Promise<ContainerBridge | null>; current: ContainerBridge | null };
  /** Remove the container and stop the runner session; the next request starts a fresh container. */
  remove(): Promise<void>;
}

/** One command through the job's runner session (started with the first command): see container-runner. */
export async function runThroughRunner(
  session: SessionParts,
  req: ExecRequest,
  clientEnv: Record<string, string>,
  dir: string,
): Promise<ExecResult> {
  const { live, base, spec, checkout, program } = session;
  const started = Date.now();
  if (!live.runner || live.runner.ended) {
    const argv = [
      ...base,
      ...execArgs(spec, {
        argv: ["/bin/sh", "-c", RUNNER_SCRIPT],
        cwd: checkout,
        env: { ...CACHE_ENV, ...INSTALL_QUIET_ENV, ...session.bridge.current?.env },
        input: true,
      }),
    ];
    live.runner = startContainerRunner(program, argv, clientEnv, dir);
  }
  const runner = live.runner;
  let timedOut = false;
  // A stop removes the container; the command's result waits for that removal, not only for the runner to end (the
  // engine ends the exec session before its `rm` returns, and a caller then saw the container still listed).
  let removing: Promise<void> | undefined;
  const stop = () => void (removing ??= session.remove());
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, req.timeoutMs ?? 600_000);
  req.signal?.addEventListener("abort", stop, { once: true });
  try {
    const r = await runner.run(runnerScript(req, insideCheckout(real(req.cwd), checkout), session.bridge.current), {
      maxOutputBytes: req.maxOutputBytes ?? 1_000_000,
    });
    const stopped = timedOut || req.signal?.aborted;
    if (stopped) await (removing ??= session.remove());
    if (r.spawnError !== undefined && !stopped) live.running = null;
    return {
      ...r,
      ...(stopped ? { exitCode: null, spawnError: undefined } : {}),
      ...(req.signal?.aborted && !timedOut ? { spawnError: "the command was cancelled" } : {}),
      timedOut,
      durationMs: Date.now() - started,
    };
  } finally {
    clearTimeout(timer);
    req.signal?.removeEventListener("abort", stop);
  }
}

/** The script the runner runs for one request: go to `cwd`, export the request's env, exec the command. */
function runnerScript(req: ExecRequest, cwd: string, bridge: ContainerBridge | null): string {
  const exports = Object.entries({ ...req.env, ...bridge?.env })
    .filter(([k]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k))
    .map(([k, v]) => `export ${k}=${quote(v)}\n`)
    .join("");
  const argv = req.shell ? ["/bin/sh", "-c", req.command] : [req.command, ...(req.args ?? [])];
  const inner = priorityArgv(bridge ? bridge.wrap(argv) : argv, req.priority, { autogroup: false });
  const command = `exec ${inner.map(quote).join(" ")}`;
  return `cd ${quote(cwd)} || exit 127\n${exports}${command}\n`;
}

/** One command as its own engine `exec` (without a runner session, or when the request has stdin input). */
export async function runByEngineExec(session: SessionParts, req: ExecRequest): Promise<ExecResult> {
  const { exec, engine, program, base, spec, checkout, live } = session;
  const bridge = session.bridge.current;
  const command = req.shell ? ["/bin/sh", "-c", req.command] : [req.command, ...(req.args ?? [])];
  // The priority applies inside the container (its processes); the engine's client on the host only waits.
  const { priority, ...rest } = req;
  const argv = priorityArgv(bridge ? bridge.wrap(command) : command, priority, { autogroup: false });
  const cwd = insideCheckout(real(req.cwd), checkout);
  const r = await exec.run({
    ...rest,
    command: program,
    args: [
      ...base,
      ...execArgs(spec, {
        argv,
        cwd,
        env: { ...CACHE_ENV, ...INSTALL_QUIET_ENV, ...req.env, ...bridge?.env },
        input: req.input !== undefined,
      }),
    ],
    shell: false,
    cwd: "/",
    // The engine's client gets only the exec door's allow-list; the command inside gets the `--env` above.
    env: {},
  });
  if (r.timedOut || req.signal?.aborted) {
    // The engine's client was killed; the command inside lives on until the container goes: remove it now.
    await session.remove();
    return r;
  }
  // The engine's own failure to exec (the container is gone): Podman exits 125, Docker's client 1 with the daemon's answer.
  const engineFailed =
    r.exitCode === 125 ||
    (engine.kind === "docker" && r.exitCode === 1 && /^Error response from daemon:/m.test(r.stderr));
  if (
    engineFailed &&
    /no such container|is not running|state improper|can only create exec sessions on running containers/i.test(
      r.stderr,
    )
  ) {
    live.running = null;
    return {
      ...r,
      exitCode: null,
      spawnError: `the job's container stopped (${lastLines(r.stderr)}); it may have run out of memory (AIDER_BOT_CONTAINER_MEMORY)`,
    };
  }
  return r;
}

/** Commands run only in the checkout (where the container has it mounted); anything else runs at its root. */
function insideCheckout(cwd: string, checkout: string): string {
  return cwd === checkout || cwd.startsWith(`${checkout}${path.sep}`) ? cwd : checkout;
}

export function lastLines(text: string): string {
  return text.trim().split("\n").slice(-3).join(" ").slice(0, 400) || "no output";
}

export function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** One word for a POSIX shell, single-quoted. */
function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
