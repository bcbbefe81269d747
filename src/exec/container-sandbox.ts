import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import {
  cacheVolumeName,
  cpuSharesArgs,
  engineProgram,
  globalArgs,
  imageExistsArgs,
  NORMAL_CPU_SHARES,
  probeArgs,
  pullArgs,
  removeArgs,
  runArgs,
  type ContainerEngine,
  type ContainerSpec,
} from "./container-engine.js";
import {
  lastLines,
  real,
  runByEngineExec,
  runThroughRunner,
  type ContainerBridge,
  type SessionParts,
} from "./container-commands.js";
import { BACKGROUND_CPU_SHARES } from "./priority.js";
import type { ContainerTarget, Exec, ExecRequest, ExecResult, ProcessPriority, SandboxMode } from "./types.js";

export type { ContainerTarget } from "./types.js";

export type { ContainerBridge } from "./container-commands.js";

export interface ContainerSandboxOptions {
  engine: ContainerEngine;
  /** Keep the host's network inside (policy `open`); otherwise `--network none`. */
  network: boolean;
  /**
   * Policy `registries`: the egress bridge, asked for when the container starts (null: none, so no network at all);
   * its variables go to every command and each command waits for the forwarder. See src/egress/.
   */
  egress?: () => Promise<ContainerBridge | null>;
  /** How long a pull may take (default 10 min). */
  pullTimeoutMs?: number;
  /** How long the engine lets a container live if the app never removes it (default 4 h: longer than any job, Podman only). */
  lifetimeS?: number;
  /**
   * The engine client's environment (the exec door's allow-list, `baseEnv`): with it, commands go through one
   * long-lived runner session in the container (milliseconds per command); without, one `exec` per command.
   */
  clientEnv?: Record<string, string>;
  /**
   * `background`: the container's CPU shares are lowered (see BACKGROUND_CPU_SHARES), so its commands weigh less than
   * the job's own container's on a busy machine (the base's checks, run beside the change's).
   */
  priority?: ProcessPriority;
}

/**
 * The container of one job: an {@link Exec} whose every request runs in it (through one runner session, see
 * container-runner, or an engine `exec` per request without `clientEnv`), started once
 * (`start()`, or by the first request) and removed by `close()`. A request that times out or is cancelled removes the
 * whole container (every process in it dies with it); the next request starts a fresh one from the same image.
 */
export interface ContainerSession extends Exec {
  readonly target: ContainerTarget;
  readonly name: string;
  /** Pull the image if missing and start the container; null when it runs, else what failed and what to do. */
  start(): Promise<string | null>;
  /** Remove the container (idempotent). Requests after it are refused. */
  close(): Promise<void>;
  sandboxMode(): Promise<SandboxMode>;
}

/** Images known present in this process: checked (and pulled) once per image. */
const present = new Map<string, Promise<string | null>>();

/** The label every container of the app carries, with the pid of the process that started it. */
export const CONTAINER_LABEL = "io.aider-bot.pid";
/** The label with the host name of that process (the start-up sweep removes only its own machine's leftovers). */
export const CONTAINER_HOST_LABEL = "io.aider-bot.host";

/** Why the container engine cannot run containers here, or null when it can. */
export async function containerEngineProblem(exec: Exec, engine: ContainerEngine): Promise<string | null> {
  const r = await exec.run({
    command: engineProgram(engine),
    args: [...globalArgs(engine), ...probeArgs(engine)],
    cwd: "/",
    timeoutMs: 20_000,
  });
  if (r.exitCode === 0) return null;
  if (r.spawnError)
    return /ENOENT/.test(r.spawnError)
      ? `${engine.kind} is not installed`
      : `${engine.kind} could not be started: ${r.spawnError}`;
  return `${engine.kind} does not work on this host (${lastLines(r.output)})`;
}

/** A container session for one job (nothing starts until `start()` or the first request). */
export function createContainerSession(
  exec: Exec,
  target: ContainerTarget,
  options: ContainerSandboxOptions,
): ContainerSession {
  const session = sessionParts(exec, target, options);
  const start = () => startContainer(session, options.pullTimeoutMs ?? 600_000);
  const { controlDir } = session;
  return {
    target,
    name: session.spec.name,
    start,
    async close() {
      session.live.closed = true;
      await session.remove();
      if (controlDir) await rm(controlDir, { recursive: true, force: true });
    },
    sandboxMode: async () => `container (image ${target.image}, from ${target.imageSource})`,
    async run(req: ExecRequest): Promise<ExecResult> {
      const raise = () => raiseToNormal(session);
      req.urgent?.addEventListener("abort", raise, { once: true });
      if (req.urgent?.aborted) raise();
      try {
        const problem = await start();
        if (problem !== null) return notRun(`not run: ${problem}`);
        if (req.signal?.aborted) return notRun("not run: the run was cancelled");
        // Awaited here: the raise listens until the command ends.
        if (controlDir && options.clientEnv && req.input === undefined)
          return await runThroughRunner(session, req, options.clientEnv, controlDir);
        return await runByEngineExec(session, req);
      } finally {
        req.urgent?.removeEventListener("abort", raise);
      }
    },
  };
}

/** What the parts of one session share: its container's spec, the engine client and what is live now. */

function sessionParts(exec: Exec, target: ContainerTarget, options: ContainerSandboxOptions): SessionParts {
  const engine = options.engine;
  const program = engineProgram(engine);
  const base = globalArgs(engine);
  const name = `aider-bot-${process.pid}-${randomBytes(4).toString("hex")}`;
  const checkout = real(target.checkout);
  const gitDir = path.join(checkout, ".git");
  // Beside the checkout, in the job's own folder (removed with it): the runner's scripts and outputs.
  const controlDir = options.clientEnv ? path.join(path.dirname(checkout), `.${name}-ctl`) : undefined;
  const spec: ContainerSpec = {
    name,
    image: target.image,
    checkout,
    ...(existsSync(gitDir) ? { gitDir } : {}),
    cacheVolume: cacheVolumeName(target.cacheKey, createHash("sha256").update(target.cacheKey).digest("hex")),
    ...(controlDir ? { controlDir } : {}),
    network: options.network,
    ...(options.priority === "background" ? { cpuShares: BACKGROUND_CPU_SHARES } : {}),
    lifetimeS: options.lifetimeS ?? 4 * 3600,
    labels: { [CONTAINER_LABEL]: String(process.pid), [CONTAINER_HOST_LABEL]: os.hostname() },
  };
  const engineRun = (args: string[], timeoutMs: number) =>
    exec.run({ command: program, args: [...base, ...args], cwd: "/", timeoutMs, maxOutputBytes: 64_000 });
  const live: SessionParts["live"] = { running: null, runner: null, closed: false };
  const remove = async (): Promise<void> => {
    live.running = null;
    const r = live.runner;
    live.runner = null;
    await engineRun(removeArgs(engine, name), 60_000);
    r?.stop();
  };
  const bridge = { ...(options.egress ? { resolve: options.egress } : {}), current: null };
  return { exec, engine, program, base, target, spec, checkout, controlDir, engineRun, live, remove, bridge };
}

/**
 * The run now waits for this background container's work (its `urgent` fired): its CPU weight goes back to the
 * engine's default, for the container running now (`update`) and any started after it. The processes' own priority
 * inside (their nice value) is left: every process of the container has the same one, so it weighs nothing against
 * the host's other work, which the container's weight is what decides. A failed update changes nothing else.
 */
function raiseToNormal(session: SessionParts): void {
  if (session.spec.cpuShares === undefined) return;
  delete session.spec.cpuShares;
  const { live, engineRun, spec } = session;
  // A start under way made its arguments already: the update waits for the container to run.
  void live.running?.then((problem) =>
    problem === null ? engineRun(cpuSharesArgs(spec.name, NORMAL_CPU_SHARES), 30_000) : undefined,
  );
}

/** The image of the session's target, pulled when missing: null when present, else what failed and what to do. */
function ensureImage({ engine, target, engineRun }: SessionParts, pullTimeoutMs: number): Promise<string | null> {
  const key = `${engine.kind} ${engine.socket ?? ""} ${target.image}`;
  let known = present.get(key);
  if (!known) {
    known = (async () => {
      if ((await engineRun(imageExistsArgs(engine, target.image), 30_000)).exitCode === 0) return null;
      const r = await engineRun(pullArgs(target.image), pullTimeoutMs);
      if (r.exitCode === 0) return null;
      const said = r.timedOut ? "the pull did not finish in time" : (r.spawnError ?? lastLines(r.output));
      return `the image \`${target.image}\` (from ${target.imageSource}) could not be pulled: ${said}. Check the image's name and that the app's host can reach its registry, or set \`sandbox.image\` in .github/aider.yml to an image that exists`;
    })();
    present.set(key, known);
    // A failed pull is tried again by the next job, not remembered.
    void known.then((problem) => problem !== null && present.delete(key));
  }
  return known;
}

/** Start the container once (concurrent callers share the attempt); a failed start is retried by the next call. */
function startContainer(session: SessionParts, pullTimeoutMs: number): Promise<string | null> {
  const { live, engine, spec, target, controlDir, engineRun } = session;
  if (live.closed) return Promise.resolve("the job's container was already removed (the job is ending)");
  live.running ??= (async () => {
    const pulled = await ensureImage(session, pullTimeoutMs);
    if (pulled !== null) return pulled;
    if (live.closed) return "the job's container was already removed (the job is ending)";
    if (controlDir) await mkdir(controlDir, { recursive: true, mode: 0o700 });
    const bridge = (session.bridge.current = session.bridge.resolve ? await session.bridge.resolve() : null);
    const args = runArgs(engine, bridge ? { ...spec, egress: bridge } : spec);
    let r = await engineRun(args, 120_000);
    // Two containers of one repository starting together (the job's and its base run's) both create its cache
    // volume; podman refuses the second creation although the volume now exists. Started again, it is only mounted.
    // Once: a volume refused twice is not a race any more.
    if (lostVolumeRace(r)) {
      await engineRun(removeArgs(engine, spec.name), 60_000);
      r = await engineRun(args, 120_000);
    }
    if (r.exitCode === 0) return null;
    const said = r.spawnError ?? lastLines(r.output);
    // Half-created containers are removed too.
    await engineRun(removeArgs(engine, spec.name), 60_000);
    if (lostVolumeRace(r) && spec.cacheVolume)
      return `the cache volume \`${spec.cacheVolume}\` could not be mounted: ${engine.kind} refused to create it twice although it says it exists (${said}). It holds only package managers' caches: remove it (\`${engine.kind} volume rm ${spec.cacheVolume}\`) and run again; if that does not help, check the engine's log`;
    return `a container could not be started from \`${target.image}\` (from ${target.imageSource}): ${said}. The image needs /bin/sh; check the engine's settings (AIDER_BOT_CONTAINER_*) and its log`;
  })();
  const attempt = live.running;
  // A failed start is not kept: the next request tries again.
  void attempt.then((problem) => problem !== null && live.running === attempt && (live.running = null));
  return attempt;
}

/** Whether a start failed only because another container created the cache volume first (Podman's answer). */
function lostVolumeRace(r: ExecResult): boolean {
  return r.exitCode !== 0 && r.spawnError === undefined && /volume already exists/.test(r.output);
}

function notRun(spawnError: string): ExecResult {
  return { exitCode: null, output: "", stdout: "", stderr: "", timedOut: false, durationMs: 0, spawnError };
}
