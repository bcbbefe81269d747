/**
 * The argument lists of a container engine's CLI (pure): Podman run here, or the Docker CLI talking to a daemon's
 * socket. Only `container-sandbox.ts` runs them.
 */
export interface ContainerEngine {
  kind: "podman" | "docker";
  /** Docker: the daemon's socket (`unix:///var/run/docker.sock`); Podman: a remote service's socket. */
  socket?: string;
  /** Podman's OCI runtime (`runc`); "" for the engine's default. */
  runtime?: string;
  /** Podman's cgroup manager (`cgroupfs`); "" for the engine's default. */
  cgroupManager?: string;
  /**
   * Podman: a registries.conf of the operator's (a mirror, a registry on plain HTTP marked `insecure`), given as
   * `--registries-conf` so the client's environment stays the allow-list. Docker's daemon reads its own configuration.
   */
  registriesConf?: string;
  /** `nofile=1024:1024`, … (below the host's hard limits: a higher one makes the start fail). */
  ulimits: readonly string[];
  memory: string;
  cpus: string;
  pids: number;
}

/** What one job's container holds. Paths are absolute and resolved. */
export interface ContainerSpec {
  name: string;
  image: string;
  checkout: string;
  /** The checkout's `.git`, mounted read-only on top (absent when the checkout has none). */
  gitDir?: string;
  /** The named volume for package managers' caches, mounted at {@link CACHE_MOUNT}. */
  cacheVolume?: string;
  /** The host folder of the command runner's scripts and outputs, mounted at `/aider-ctl` (see container-runner). */
  controlDir?: string;
  network: boolean;
  /** The container's CPU weight against others' 1024 (`--cpu-shares`); absent: the engine's default. */
  cpuShares?: number;
  /**
   * Policy `registries` (see src/egress/): the proxy's socket mounted at `mount`, the forwarder's files mounted
   * read-only, and the forwarder started with the container (its only way out, over its own loopback).
   */
  egress?: ContainerEgress;
  /** Seconds after which the engine kills the container even if the app never does (Podman only). */
  lifetimeS: number;
  /** Labels to find the container again (the start-up sweep). */
  labels: Readonly<Record<string, string>>;
}

/** The egress bridge of a container (see {@link ContainerSpec.egress}). */
export interface ContainerEgress {
  socket: string;
  mount: string;
  /** `host path → path inside`, mounted read-only. */
  files: readonly (readonly [string, string])[];
  /** The forwarder's command, started in the background before the container idles. */
  forwarder: readonly string[];
}

/** Where the cache volume is mounted inside the container. */
export const CACHE_MOUNT = "/aider-cache";

/**
 * Package managers' cache locations, all inside one per-repository cache folder mounted at `mount`: the container's
 * volume (at {@link CACHE_MOUNT}) or bubblewrap's folder under the cache dir (see `sandbox.ts`).
 */
export function packageCacheEnv(mount: string): Record<string, string> {
  return {
    npm_config_cache: `${mount}/npm`,
    YARN_CACHE_FOLDER: `${mount}/yarn`,
    PIP_CACHE_DIR: `${mount}/pip`,
    GOMODCACHE: `${mount}/go/mod`,
    GOCACHE: `${mount}/go/build`,
    CARGO_HOME: `${mount}/cargo`,
    MAVEN_OPTS: `-Dmaven.repo.local=${mount}/maven`,
    GRADLE_USER_HOME: `${mount}/gradle`,
  };
}

/** The container's cache settings (see {@link packageCacheEnv}). */
export const CACHE_ENV: Readonly<Record<string, string>> = packageCacheEnv(CACHE_MOUNT);

/** Capabilities a root user inside needs to install packages (chown, set ids); everything else is dropped. */
const CAPABILITIES = ["CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "SETGID", "SETUID", "KILL"];

/** The engine's program. */
export const engineProgram = (engine: ContainerEngine): string => engine.kind;

/** A socket as the engines' clients take it: a bare path (`/var/run/docker.sock`) becomes `unix:///var/run/docker.sock`. */
export const socketUrl = (socket: string): string => (socket.startsWith("/") ? `unix://${socket}` : socket);

/**
 * Flags before the sub-command: the socket (Docker's client: `--host`; the socket is given on the command line, never
 * through `DOCKER_HOST`, so the client's environment stays the exec door's allow-list), Podman's runtime and cgroup
 * manager (Docker's client has no such flags: the daemon chooses).
 */
export function globalArgs(engine: ContainerEngine): string[] {
  if (engine.kind === "docker") return engine.socket ? ["--host", socketUrl(engine.socket)] : [];
  const args = engine.socket ? ["--remote", "--url", socketUrl(engine.socket)] : [];
  if (engine.runtime) args.push("--runtime", engine.runtime);
  if (engine.cgroupManager) args.push("--cgroup-manager", engine.cgroupManager);
  if (engine.registriesConf) args.push("--registries-conf", engine.registriesConf);
  return args;
}

export const imageExistsArgs = (engine: ContainerEngine, image: string): string[] =>
  engine.kind === "podman" ? ["image", "exists", image] : ["image", "inspect", "--format", "{{.Id}}", image];

export const pullArgs = (image: string): string[] => ["pull", "--quiet", image];

/** Can the engine run containers here? (the runtime answers). */
export const probeArgs = (engine: ContainerEngine): string[] =>
  engine.kind === "podman"
    ? ["info", "--format", "{{.Host.OCIRuntime.Name}}"]
    : ["version", "--format", "{{.Server.Version}}"];

/**
 * Start the job's container, detached, idling until commands are exec'd in it: only the checkout mounted (its `.git`
 * read-only), the cache volume, no environment but the image's own, limits on memory, CPU, processes and open files,
 * capabilities cut to what package installs need, no privilege gain, the network cut unless allowed.
 */
export function runArgs(engine: ContainerEngine, spec: ContainerSpec): string[] {
  const args = ["run", "--detach", "--interactive", "--rm", "--name", spec.name];
  for (const [k, v] of Object.entries(spec.labels)) args.push("--label", `${k}=${v}`);
  if (!spec.network || spec.egress) args.push("--network", "none");
  args.push("--memory", engine.memory, "--cpus", engine.cpus, "--pids-limit", String(engine.pids));
  if (spec.cpuShares !== undefined) args.push("--cpu-shares", String(spec.cpuShares));
  for (const u of engine.ulimits) args.push("--ulimit", u);
  args.push(
    "--cap-drop",
    "ALL",
    ...CAPABILITIES.flatMap((c) => ["--cap-add", c]),
    "--security-opt",
    "no-new-privileges",
  );
  if (engine.kind === "podman") args.push("--timeout", String(spec.lifetimeS));
  args.push("--volume", `${spec.checkout}:${spec.checkout}:rw`);
  if (spec.gitDir) args.push("--volume", `${spec.gitDir}:${spec.gitDir}:ro`);
  if (spec.cacheVolume) args.push("--volume", `${spec.cacheVolume}:${CACHE_MOUNT}:rw`);
  if (spec.controlDir) args.push("--volume", `${spec.controlDir}:/aider-ctl:rw`);
  if (spec.egress) {
    for (const [from, to] of spec.egress.files) args.push("--volume", `${from}:${to}:ro`);
    args.push("--volume", `${spec.egress.socket}:${spec.egress.mount}:rw`);
  }
  args.push("--workdir", spec.checkout, "--entrypoint", "/bin/sh", spec.image);
  // Idle on the open stdin (`read` is a shell builtin, which every image with /bin/sh has), else sleep.
  const idle = "read _ || exec sleep 2147483647";
  const forwarder = spec.egress
    ? `${spec.egress.forwarder.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(" ")} </dev/null >/dev/null 2>&1 &\n`
    : "";
  args.push("-c", `${forwarder}${idle}`);
  return args;
}

/** Run one command in the job's container: `cwd` and `env` given explicitly (nothing of the app's environment). */
export function execArgs(
  spec: Pick<ContainerSpec, "name">,
  command: { argv: readonly string[]; cwd: string; env: Readonly<Record<string, string>>; input: boolean },
): string[] {
  const args = ["exec", ...(command.input ? ["--interactive"] : []), "--workdir", command.cwd];
  for (const [k, v] of Object.entries(command.env)) args.push("--env", `${k}=${v}`);
  return [...args, spec.name, ...command.argv];
}

/**
 * List the app's containers: `name pid host` per line. The two clients' templates differ: Docker's `.Labels` is one
 * comma-joined string (its `.Label "k"` looks one up), Podman's is a map (`index .Labels "k"`; it has no `.Label`).
 */
export function listArgs(engine: ContainerEngine, labels: { pid: string; host: string }): string[] {
  const label = (k: string) => (engine.kind === "docker" ? `{{.Label "${k}"}}` : `{{index .Labels "${k}"}}`);
  return [
    "ps",
    "--all",
    "--filter",
    `label=${labels.pid}`,
    "--format",
    `{{.Names}} ${label(labels.pid)} ${label(labels.host)}`,
  ];
}

/** A container's CPU weight when none is given (`--cpu-shares`'s default, cgroup v1's `cpu.shares`). */
export const NORMAL_CPU_SHARES = 1024;

/** Change a running container's CPU weight (both engines' `update`; Podman 4 does it with cgroupfs on cgroup v1 too). */
export const cpuSharesArgs = (name: string, shares: number): string[] => [
  "update",
  "--cpu-shares",
  String(shares),
  name,
];

/** Remove the container at once, killing every process in it. */
export const removeArgs = (engine: ContainerEngine, name: string): string[] =>
  engine.kind === "podman" ? ["rm", "--force", "--time", "0", name] : ["rm", "--force", name];

/** A volume name for one repository's caches: `aider-bot-cache-owner-repo-<hash>`. */
export function cacheVolumeName(cacheKey: string, hash: string): string {
  const readable = cacheKey
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, "-")
    .replace(/^[-.]+|[-.]+$/g, "")
    .slice(0, 60);
  return `aider-bot-cache-${readable ? `${readable}-` : ""}${hash.slice(0, 10)}`;
}
