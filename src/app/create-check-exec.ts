import os from "node:os";
import path from "node:path";
import type { Logger } from "pino";
import type { AppEnv } from "../config/env.js";
import type { ContainerEngine } from "../exec/container-engine.js";
import { containerEngineProblem } from "../exec/container-sandbox.js";
import { sandboxProblem } from "../exec/sandbox.js";
import { baseEnv } from "../exec/base-env.js";
import type { ContainerTarget, Exec, ExecRequest, ExecResult, SandboxMode, ToolShelfPlace } from "../exec/types.js";
import { createEgressSession } from "../egress/egress-session.js";
import type { LookupAll } from "../egress/egress-decision.js";
import { recordMetric } from "../metrics/record-metric.js";
import { createJobDirs, lazyBubblewrap, repositoryFolder } from "./bubblewrap-job.js";
import { jobContainers, notRun, otherCheckoutExec } from "./job-containers.js";

export interface CheckExecOptions {
  /** Why bubblewrap cannot run, or null when it can (default: run bwrap once and see). Tests inject a failure. */
  probe?: () => Promise<string | null>;
  /** Why the container engine cannot run, or null when it can (default: ask the engine once). */
  containerProbe?: () => Promise<string | null>;
  /** The app's own folder (its `.env` may hold the secrets); default the process's working directory. */
  appDir?: string;
  /** The repository's `sandbox.network.allow` (read from its default branch). */
  repositoryAllow?: readonly string[];
  /** How the egress proxy resolves names (tests map a name to an address); default the host's resolver. */
  egressLookup?: LookupAll;
}

type EngineEnv = Pick<
  AppEnv,
  | "containerEngine"
  | "containerRuntime"
  | "containerCgroupManager"
  | "containerMemory"
  | "containerCpus"
  | "containerPids"
  | "containerUlimits"
> &
  Partial<Pick<AppEnv, "containerSocket" | "containerRegistriesConf">>;

/** The container engine the environment describes (AIDER_BOT_CONTAINER_*). */
export function containerEngineFrom(env: EngineEnv): ContainerEngine {
  return {
    kind: env.containerEngine,
    ...(env.containerSocket ? { socket: env.containerSocket } : {}),
    ...(env.containerRegistriesConf ? { registriesConf: env.containerRegistriesConf } : {}),
    runtime: env.containerRuntime,
    cgroupManager: env.containerCgroupManager,
    ulimits: env.containerUlimits
      .split(",")
      .map((u) => u.trim())
      .filter(Boolean),
    memory: env.containerMemory,
    cpus: env.containerCpus,
    pids: env.containerPids,
  };
}

/** Whether this environment may run repository commands in a container (`container`, or `auto` when an engine works). */
export const wantsContainer = (env: Pick<AppEnv, "sandbox">): boolean =>
  env.sandbox === "container" || env.sandbox === "auto";

/**
 * The exec the repository's lint/test/setup commands run through. It fails closed: unless the operator sets
 * AIDER_BOT_SANDBOX=off, commands run only inside a sandbox; when none can run here they are not run at all and
 * `sandboxMode()` says why, so the coder skips checks and the status comment says so.
 *
 * - `container`: in the job's container (see exec/container-sandbox), from the image `useContainer` names; only the
 *   checkout is mounted. A pull or start failure is the result of each command (the check reports it).
 * - `bubblewrap` / `on`: inside bubblewrap, with the home folder, the App key's folder, the work root (other jobs'
 *   checkouts), the OS temp dir, the cache dir and the app's folder hidden.
 * - `auto`: a working container engine, else bubblewrap, else nothing.
 */
export function createCheckExec(env: AppEnv, exec: Exec, log: Logger, options: CheckExecOptions = {}): Exec {
  if (env.sandbox === "off") {
    log.warn(
      { sandbox: "off" },
      "AIDER_BOT_SANDBOX=off: repository commands run without a sandbox and can read what the app's user can read",
    );
    return { run: (req) => exec.run(req), sandboxMode: async () => "off" };
  }
  const egress = jobEgress(env, exec, log, options);
  const network = networkKey(env, egress, options);
  const open = egress.policy === "open";
  // One $HOME and one temp folder for the job's commands, made on its first command and removed with the job.
  const jobDirs = createJobDirs(env.workDir ?? os.tmpdir());
  let chosen: ContainerTarget | null = null;
  const sandboxed = lazyBubblewrap(exec, jobDirs, {
    hide: hiddenFolders(env, options),
    network: open,
    bridge: async () => ((await egress.ready()) ? egress.bwrapBridge() : null),
    // Known once the run names its repository (useContainer); commands before that get none.
    packageCache: async () => (chosen ? repositoryFolder(env, "packages", chosen.cacheKey) : null),
  });
  const engine = containerEngineFrom(env);
  const resolveKind = sandboxKind(env, exec, log, options, engine);

  let closed = false;
  const containers = jobContainers(exec, log, {
    engine,
    network: open,
    egress: async () => ((await egress.ready()) ? egress.containerBridge() : null),
    clientEnv: baseEnv(env.source),
  });
  const sessionFor = containers.sessionFor;
  const defaultTarget = (cwd: string) => defaultTargetOf(env, cwd);

  const runIn = async (req: ExecRequest): Promise<ExecResult> => {
    const k = await resolveKind();
    if (k === "bubblewrap") return egress.noted(() => sandboxed.run(req));
    if (k === "container") {
      if (closed) return notRun("the job is ending and its container was removed");
      const s = sessionFor(chosen ?? defaultTarget(req.cwd));
      return egress.noted(() => s.run(req));
    }
    // Callers check sandboxMode() first; this refusal is the backstop so nothing ever runs unsandboxed.
    return notRun(`the sandbox is ${k}`);
  };

  const self: Exec = {
    run: (req) => logged(log, "own", req, runIn),
    async sandboxMode(): Promise<SandboxMode> {
      const k = await resolveKind();
      if (k !== "container") return k;
      return (
        (containers.current() ?? (chosen ? sessionFor(chosen) : null))?.sandboxMode() ??
        `container (image not chosen yet; default ${env.defaultImage})`
      );
    },
    useContainer(target: ContainerTarget): void {
      chosen = target;
      void resolveKind().then((k) => {
        // Started ahead: the pull and the container's start overlap the model's answer. Problems come back with each command.
        if (k === "container" && !closed && chosen === target) void sessionFor(target).start();
      });
    },
    forCheckout: (dir, other) => {
      const exec = otherCheckoutExec(dir, {
        // Its bubblewrap commands go through the job's sandbox; logged once, below, as the other checkout's.
        job: { ...self, run: runIn },
        ...(other?.priority ? { priority: other.priority } : {}),
        inContainer: async () => (await resolveKind()) === "container",
        ending: () => closed,
        // A container of the job's image and package cache, with only this checkout mounted, and a home of its own.
        session: () =>
          containers.make(
            { ...(chosen ?? defaultTarget(dir)), checkout: dir },
            "another checkout's commands run in a container of their own",
            other?.priority,
          ),
        noted: (run) => egress.noted(run),
        others: containers.others,
      });
      // Its priority set here, as otherCheckoutExec would (the log says what the command ran at). In bubblewrap the
      // base's commands share the job's home, and so its tools.
      const run = (req: ExecRequest) => logged(log, "other", { priority: other?.priority, ...req }, exec.run);
      return { ...exec, run, toolShelf: self.toolShelf! };
    },
    egressReport: () => egress.report(),
    toolShelf: jobToolShelf(env, resolveKind, jobDirs, () => (closed ? null : chosen), network),
    prepare: () => prepareFirstCommand(resolveKind, () => closed, sandboxed, egress),
    prestart: (shape) => void resolveKind().then((k) => k === "bubblewrap" && !closed && sandboxed.prestart(shape)),
    async close(): Promise<void> {
      closed = true;
      // The sandboxes started ahead first: their forwarders hold the egress proxy's socket.
      await sandboxed.close();
      await containers.close();
      await egress.close();
      await jobDirs.remove();
    },
  };
  return self;
}

/** Without a chosen image (a caller that never said), the operator's default image for the request's folder. */
const defaultTargetOf = (env: Pick<AppEnv, "defaultImage">, cwd: string): ContainerTarget => ({
  image: env.defaultImage,
  imageSource: "the operator's default image (AIDER_BOT_DEFAULT_IMAGE)",
  checkout: cwd,
  cacheKey: cwd,
});

/**
 * `run(req)`, and one line per repository command (info): what ran, in which of the job's checkouts (`own`, or
 * `other`: the base's), at which priority, how long it took and how it ended — where a run's check time went.
 */
async function logged(
  log: Logger,
  checkout: "own" | "other",
  req: ExecRequest,
  run: (req: ExecRequest) => Promise<ExecResult>,
): Promise<ExecResult> {
  const started = performance.now();
  const r = await run(req);
  if (req.label === undefined) return r;
  log.info(
    {
      command: req.label.slice(0, 300),
      checkout,
      priority: req.priority ?? "normal",
      ms: Math.round(performance.now() - started),
      exitCode: r.exitCode,
      ...(r.timedOut ? { timedOut: true } : {}),
      ...(r.spawnError ? { spawnError: r.spawnError.slice(0, 200) } : {}),
      ...(r.ahead ? { ahead: true } : {}),
    },
    "check command finished",
  );
  return r;
}

/**
 * The exec's `toolShelf`: the repository's shelf and the job's home. Bubblewrap only: there the job's home is a host
 * folder the shelf's tools are copied into (a container's home is inside it; its jobs install as before).
 */
function jobToolShelf(
  env: Pick<AppEnv, "cacheDir" | "toolRetryMinutes">,
  kind: () => Promise<string>,
  jobDirs: ReturnType<typeof createJobDirs>,
  target: () => ContainerTarget | null,
  network: string,
): () => Promise<ToolShelfPlace | null> {
  return async () => {
    const chosen = target();
    if (!chosen || (await kind()) !== "bubblewrap") return null;
    const dirs = await jobDirs.make();
    if (!dirs) return null;
    return {
      dir: await repositoryFolder(env, "tools", chosen.cacheKey),
      home: dirs.home,
      retryAfterMs: env.toolRetryMinutes * 60_000,
      network,
    };
  };
}

/**
 * What the job's sandbox may reach, as text (a tool install's remembered network failure holds for this alone): the
 * policy in force and every list that widens it. The allow file is named, not read: an operator who edits it in place
 * waits out AIDER_BOT_TOOL_RETRY_MINUTES, or removes the shelf's `.failed` file.
 */
function networkKey(env: AppEnv, egress: { policy: string }, options: CheckExecOptions): string {
  return JSON.stringify([
    egress.policy,
    env.egressAllow ?? [],
    env.egressAllowFile ?? "",
    env.egressInternal ?? [],
    env.egressRepoAllow ? (options.repositoryAllow ?? []) : [],
    env.hostProxy ? "host proxy" : "",
  ]);
}

/** The job's network policy (src/egress/): `registries` bridges the job's filtering proxy into the sandbox. */
function jobEgress(env: AppEnv, exec: Exec, log: Logger, options: CheckExecOptions) {
  return createEgressSession({
    env,
    exec,
    log,
    ...(options.repositoryAllow ? { repositoryAllow: options.repositoryAllow } : {}),
    ...(options.egressLookup ? { lookup: options.egressLookup } : {}),
    ...(env.source.PATH ? { pathEnv: env.source.PATH } : {}),
    onBlock: (policy) => recordMetric({ type: "egress-block", policy, count: 1 }),
  });
}

/**
 * The check exec's `prepare`: what the first command would wait for, done ahead. Each of these waited for it, in the
 * run's tests stage: ~50–300 ms between the stage's start and bwrap's on a busy 2-core machine, most of it the job's
 * folders made on disk and the egress proxy's start. Never rejects (the first command meets a failure again).
 */
function prepareFirstCommand(
  kind: () => Promise<string>,
  closed: () => boolean,
  bubblewrap: { prepare(): Promise<void> },
  egress: { ready(): Promise<boolean> },
): Promise<void> {
  return kind()
    .then(async (k) => {
      if (closed() || k.startsWith("unavailable")) return;
      await Promise.all([k === "bubblewrap" ? bubblewrap.prepare() : undefined, egress.ready()]);
    })
    .catch(() => undefined);
}

/** What every sandbox hides: homes, temp, the app's folder, the jobs' root, the caches and the App key's folder. */
function hiddenFolders(env: AppEnv, options: CheckExecOptions): string[] {
  return [
    os.homedir(),
    os.tmpdir(),
    options.appDir ?? process.cwd(),
    ...(env.workDir ? [env.workDir] : []),
    ...(env.cacheDir ? [env.cacheDir] : []),
    ...(env.privateKeyPath ? [path.dirname(path.resolve(env.privateKeyPath))] : []),
    // In a job process PRIVATE_KEY_PATH is gone; the app hands over the key's folder instead (see withoutSecrets).
    ...(env.keyDir ? [env.keyDir] : []),
  ];
}

/**
 * Which sandbox the repository's commands get, decided once (on the first command or `sandboxMode()`): a working
 * container engine when the mode wants one, else bubblewrap (not in `container` mode), else none, with the reason.
 */
function sandboxKind(
  env: AppEnv,
  exec: Exec,
  log: Logger,
  options: CheckExecOptions,
  engine: ReturnType<typeof containerEngineFrom>,
): () => Promise<"container" | "bubblewrap" | `unavailable: ${string}`> {
  const bwrapProbe = options.probe ?? (() => sandboxProblem(exec));
  const engineProbe = options.containerProbe ?? (() => containerEngineProblem(exec, engine));
  let kind: Promise<"container" | "bubblewrap" | `unavailable: ${string}`> | null = null;
  return () =>
    (kind ??= (async () => {
      const engineProblem = wantsContainer(env) ? await engineProbe() : null;
      if (wantsContainer(env) && engineProblem === null) {
        log.info({ sandbox: "container", engine: engine.kind }, "repository commands run in containers");
        return "container" as const;
      }
      if (env.sandbox === "container") {
        log.error(
          { sandbox: "unavailable", reason: engineProblem },
          `container engine unavailable: repository commands are NOT run: ${engineProblem}`,
        );
        return `unavailable: ${engineProblem}. Install ${engine.kind} (see AIDER_BOT_CONTAINER_ENGINE), or set AIDER_BOT_SANDBOX=bubblewrap` as const;
      }
      const problem = await bwrapProbe();
      if (problem === null) {
        log.info(
          { sandbox: "bubblewrap", ...(engineProblem ? { container: engineProblem } : {}) },
          "repository commands run in a bubblewrap sandbox",
        );
        return "bubblewrap" as const;
      }
      const both = engineProblem ? `${problem}; and ${engineProblem}` : problem;
      log.error(
        { sandbox: "unavailable", reason: both },
        `no sandbox available: repository commands (setup, lint, test) are NOT run: ${both}. Install bubblewrap and allow user namespaces, or a container engine, or set AIDER_BOT_SANDBOX=off to run them unsandboxed.`,
      );
      return `unavailable: ${both}` as const;
    })());
}
