import { existsSync, realpathSync } from "node:fs";
import path from "node:path";
import { packageCacheEnv } from "./container-engine.js";
import { INSTALL_QUIET_ENV } from "./install-quiet-env.js";
import { priorityArgv } from "./priority.js";
import { createSandboxAhead, servedAhead, WAITING_STUB, type SandboxForms } from "./sandbox-ahead.js";
import type { Exec, ExecRequest, SandboxMode } from "./types.js";

export interface SandboxOptions {
  /**
   * Directories replaced by an empty tmpfs: home, the App key's folder, the work root (other jobs' checkouts), the
   * OS temp dir, the cache dir, the app's own folder. The job's checkout is mounted back on top, so a work root that
   * contains it is still hidden around it.
   */
  hide: readonly string[];
  /** Keep the host's network (policy `open`); otherwise the sandbox has its own, with only loopback. */
  network: boolean;
  /**
   * The job's own `$HOME` and temp folder (host folders, kept across its commands and removed with the job): the
   * home mounted at `homeAt` (the home's usual path, hidden otherwise) and the temp folder at /tmp, so what a setup
   * step installs there (`pip install --user`, `~/.local/bin/uv`, npm config) is still there for lint and test.
   * Absent: a fresh empty /tmp and home per command.
   */
  jobDirs?: { home: string; tmp: string; homeAt: string };
  /**
   * Policy `registries`: the egress bridge for each command (null: none, the sandbox then has no network at all).
   * See src/egress/.
   */
  bridge?: () => Promise<SandboxBridge | null>;
  /**
   * The repository's package-manager cache for each command: a host folder (made, resolved) mounted writable at the
   * same path, with npm's, pip's, Go's, Cargo's, … cache settings pointing into it (the container's list, see
   * `packageCacheEnv`), so it lasts from one job of the repository to the next while home and temp stay the job's.
   * Null or absent: no cache beyond the job's home. It must be one repository's own folder: what one job writes there
   * the next job of that repository installs (see docs/sandbox.md).
   */
  packageCache?: () => Promise<string | null>;
}

/** The sandbox's way out (see egress/egress-session): the proxy's socket, mounted in, and a forwarder started inside. */
export interface SandboxBridge {
  /** The proxy's Unix socket on the host, and where it is mounted inside. */
  socket: string;
  mount: string;
  /** The proxy variables (they name the forwarder's port on the sandbox's loopback). */
  env: Readonly<Record<string, string>>;
  /** The command with the forwarder started ahead of it. */
  wrap(inner: readonly string[]): string[];
}

/** The flags every sandboxed run uses; the probe uses the same ones, so "it works" means "it works for real runs". */
const NAMESPACES = ["--unshare-all", "--unshare-pid", "--die-with-parent", "--new-session"];

/** The arguments of `bwrap` that probe it: `true` run with every flag a real run uses. */
export const SANDBOX_PROBE_ARGS: readonly string[] = [
  "--ro-bind",
  "/",
  "/",
  "--dev",
  "/dev",
  "--proc",
  "/proc",
  ...NAMESPACES,
  "true",
];

/**
 * Why bubblewrap cannot run here (not installed, user namespaces disabled, …), or null when it works. The reason
 * is what bwrap or the spawn said, for the status comment and the log.
 */
export async function sandboxProblem(exec: Exec): Promise<string | null> {
  const r = await exec.run({ command: "bwrap", args: [...SANDBOX_PROBE_ARGS], cwd: "/", timeoutMs: 10_000 });
  if (r.exitCode === 0) return null;
  if (r.spawnError)
    return /ENOENT/.test(r.spawnError)
      ? "bubblewrap (bwrap) is not installed"
      : `bwrap could not be started: ${r.spawnError}`;
  const said = r.output.trim().split("\n").slice(-2).join(" ").slice(0, 300);
  return `bwrap does not work on this host${said ? ` (${said})` : ""}; user namespaces may be disabled`;
}

/** Whether bubblewrap is installed and user namespaces work here (often disabled in containers). */
export async function probeSandbox(exec: Exec): Promise<boolean> {
  return (await sandboxProblem(exec)) === null;
}

/**
 * The bubblewrap form of a request: the whole file system read-only, `hide`n folders replaced by empty ones, the
 * checkout (cwd) writable on top of them, its `.git` read-only (no hooks, no config includes), a private /tmp, its
 * own PID namespace with its own /proc (the app's processes and their environ are invisible), separate IPC/UTS,
 * no network unless asked, killed with its parent. The environment stays the exec door's allow-list.
 * Paths must be absolute and already resolved (see {@link createSandboxedExec}).
 */
/**
 * Where npm looks for its global config by default: `etc/npmrc` under the prefix of the Node that runs it (the
 * folder above `bin/node`). The sandbox runs the host's Node, so this is the host's file.
 */
export const NPM_GLOBAL_CONFIG = path.join(path.dirname(path.dirname(process.execPath)), "etc", "npmrc");

export function sandboxRequest(
  req: ExecRequest,
  options: Omit<SandboxOptions, "bridge" | "packageCache"> & {
    gitDir?: string;
    bridge?: SandboxBridge | null;
    npmGlobalConfig?: string;
    packageCache?: string | null;
    /** The sandbox started ahead of its command (see exec/sandbox-ahead): the waiting stub in the command's place. */
    waiting?: boolean;
  },
): ExecRequest {
  const jobDirs = options.jobDirs;
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  args.push(...(jobDirs ? ["--bind", jobDirs.tmp, "/tmp"] : ["--tmpfs", "/tmp"]));
  // Parents first: a tmpfs over a folder would otherwise cover a tmpfs mounted on a folder inside it.
  const hide = [...new Set(options.hide)].filter((d) => d !== "/" && d !== "/tmp").sort((a, b) => a.length - b.length);
  for (const dir of hide) args.push("--tmpfs", dir);
  if (jobDirs) args.push("--bind", jobDirs.home, jobDirs.homeAt, "--setenv", "HOME", jobDirs.homeAt);
  if (jobDirs) args.push("--setenv", "TMPDIR", "/tmp");
  // The system's npm prefix is read-only in here: a CI step's `npm install -g nyc` installs into the job's home
  // instead (its `bin` is put on PATH by the check's shell, beside pip's `--user` scripts), and lasts for the job.
  // npm reads its global config from `<prefix>/etc/npmrc`: that stays the system's, which may hold the host's
  // registry settings (a `cafile` for a TLS-inspecting proxy, a mirror) that every install needs.
  if (jobDirs)
    args.push(
      "--setenv",
      "npm_config_prefix",
      path.posix.join(jobDirs.homeAt, ".local"),
      "--setenv",
      "npm_config_globalconfig",
      NPM_GLOBAL_CONFIG,
    );
  // After the hidden folders: the cache dir around this repository's folder stays an empty tmpfs, so no other
  // repository's cache is reachable. A setting the request gives itself wins, as in a container.
  if (options.packageCache) {
    args.push("--bind", options.packageCache, options.packageCache);
    for (const [name, value] of Object.entries(packageCacheEnv(options.packageCache)))
      if (req.env?.[name] === undefined) args.push("--setenv", name, value);
  }
  if (options.bridge) args.push("--bind", options.bridge.socket, options.bridge.mount);
  args.push("--bind", req.cwd, req.cwd);
  // Repo scripts may build and write in the checkout, but not plant hooks or config in its .git.
  if (options.gitDir) args.push("--ro-bind", options.gitDir, options.gitDir);
  // No reports around installs that CI never reads (see install-quiet-env); the request's own values win.
  for (const [name, value] of Object.entries(INSTALL_QUIET_ENV))
    if (req.env?.[name] === undefined) args.push("--setenv", name, value);
  args.push("--chdir", req.cwd, ...NAMESPACES);
  if (options.network) args.push("--share-net");
  const command = options.waiting
    ? [...WAITING_STUB]
    : req.shell
      ? ["/bin/sh", "-c", req.command]
      : [req.command, ...(req.args ?? [])];
  // The priority is set inside, after bwrap's `--new-session`: that session (its own autogroup) is where the command
  // and everything it starts run, the egress forwarder included; bwrap itself only waits.
  const { priority, ...rest } = req;
  const wrapped = options.bridge ? options.bridge.wrap(command) : command;
  const inner = priorityArgv(wrapped, priority, { autogroup: true });
  const env = options.bridge ? { ...req.env, ...options.bridge.env } : req.env;
  return { ...rest, command: "bwrap", args: [...args, ...inner], shell: false, ...(env ? { env } : {}) };
}

/**
 * An {@link Exec} that runs every request inside the sandbox. Hidden folders that do not exist are left out (bwrap
 * cannot create a mount point in the read-only root), and symlinks are resolved so the mounts hit the real folders.
 *
 * Where the exec below can start a process that waits (`startWaiting`), a command line at normal priority runs in a
 * sandbox started ahead of it when one is ready for exactly its sandbox (see exec/sandbox-ahead), and the next one is
 * started as it begins; `prestart` starts one for a shape of request before its first command. `close()` ends those
 * still waiting.
 */
export function createSandboxedExec(
  exec: Exec,
  options: SandboxOptions,
): Exec & { prestart(shape: ExecRequest): void; close(): Promise<void> } {
  const ahead = createSandboxAhead(exec);
  const forms = async (req: ExecRequest): Promise<SandboxForms> => {
    const bridge = options.bridge ? await options.bridge() : null;
    const packageCache = options.packageCache ? await options.packageCache() : null;
    const cwd = real(req.cwd);
    const hide = options.hide
      .map((d) => path.resolve(d))
      .filter(existsSync)
      .map(real);
    const gitDir = path.join(cwd, ".git");
    const hasGit = existsSync(gitDir);
    const sandbox = {
      hide,
      network: options.network,
      bridge,
      ...(packageCache ? { packageCache: real(packageCache) } : {}),
      ...(options.jobDirs ? { jobDirs: options.jobDirs } : {}),
      ...(hasGit ? { gitDir } : {}),
    };
    const inside = { ...req, cwd };
    const waiting =
      servedAhead(req) && exec.startWaiting ? sandboxRequest(inside, { ...sandbox, waiting: true }) : null;
    return {
      run: sandboxRequest(inside, sandbox),
      waiting: waiting && {
        command: waiting.command,
        ...(waiting.args ? { args: waiting.args } : {}),
        cwd: waiting.cwd,
        ...(waiting.env ? { env: waiting.env } : {}),
        ...(waiting.maxOutputBytes !== undefined ? { maxOutputBytes: waiting.maxOutputBytes } : {}),
      },
      mounted: hasGit ? [cwd, gitDir] : [cwd],
    };
  };
  return {
    run: async (req) => ahead.run(await forms(req), req),
    sandboxMode: async () => "bubblewrap" satisfies SandboxMode,
    prestart: (shape) => void forms(shape).then(ahead.start, () => undefined),
    close: () => ahead.close(),
  };
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    // Missing: bwrap reports it when it tries to mount it, with the path in its message.
    return path.resolve(p);
  }
}
