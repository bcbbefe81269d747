/** The one door to child processes (`src/exec/` implements it; tests may use the real one). */
export interface ExecRequest {
  /** argv[0] and arguments; no shell unless `shell: true` (used for user-configured lint/test command strings). */
  command: string;
  args?: readonly string[];
  shell?: boolean;
  cwd: string;
  /** Extra variables on top of the allow-listed base environment (never secrets). */
  env?: Readonly<Record<string, string>>;
  /** Milliseconds; the process group is killed when exceeded. */
  timeoutMs?: number;
  /** Bytes of stdout+stderr kept (head and tail). */
  maxOutputBytes?: number;
  input?: string;
  /** Aborting kills the whole process group (a cancelled job stops its test run at once). */
  signal?: AbortSignal;
  /**
   * `background`: work that must not slow the run's own commands (the base's checks, run beside them): a lower CPU
   * and I/O priority for the command and every process it starts (see exec/priority). Default `normal`.
   */
  priority?: ProcessPriority;
  /**
   * For a `background` command: when it fires, the command and every process it started are raised back to normal
   * priority, where the host allows it (raising needs CAP_SYS_NICE: an app running as root), and what it starts from
   * then on runs at normal priority: the run now waits for this command. In a container session its container gets
   * the default CPU weight back instead (its processes are not the app's children).
   */
  urgent?: AbortSignal;
  /**
   * What the app's log names the command by (a check's command line as the repository wrote it, not the shell text
   * around it); never passed to the process.
   */
  label?: string;
}

/** How much of a busy machine a command gets: `normal`, or `background` (what is left after normal work). */
export type ProcessPriority = "normal" | "background";

export interface ExecResult {
  exitCode: number | null;
  /** stdout and stderr interleaved as received. */
  output: string;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
  /** Set when the command could not be started (ENOENT, …). */
  spawnError?: string;
  /** Set when it ran in a sandbox set up ahead of it (see exec/sandbox-ahead): for the log. */
  ahead?: true;
}

/**
 * Where repository commands run: inside bubblewrap, in a container (`container (image …, from …)`), without a
 * sandbox because the operator said so (`AIDER_BOT_SANDBOX=off`), or not at all because no sandbox can run here
 * (the reason follows).
 */
export type SandboxMode = "bubblewrap" | "off" | `container (${string})` | `unavailable: ${string}`;

/** The image and repository of one job's container (container mode). */
export interface ContainerTarget {
  image: string;
  /** Where the image came from (for the status comment): "`sandbox.image` in .github/aider.yml". */
  imageSource: string;
  /** The job's checkout: the only folder of the host the container sees. */
  checkout: string;
  /** Names the package-manager cache volume: one per repository (and per fork, so a fork cannot poison it). */
  cacheKey: string;
}

export interface Exec {
  run(req: ExecRequest): Promise<ExecResult>;
  /** Set on the exec that runs repository commands (see `app/create-check-exec`); absent on a plain exec. */
  sandboxMode?(): Promise<SandboxMode>;
  /**
   * Container mode: the job's checkout and image, set once the checkout exists and its image is chosen (the
   * container starts ahead, while the model thinks). Other modes ignore it.
   */
  useContainer?(target: ContainerTarget): void;
  /**
   * An exec for another checkout of the same job (the base's, see run/prepare/baseline-run), under the same rules:
   * the same sandbox, `$HOME`/temp rules and package cache. In container mode its commands run in a container of their
   * own, of the job's image, that mounts only `checkout`. `close()` releases it (also done by this exec's `close()`).
   * Absent: the other checkout's commands run through this exec. `priority`: the priority of the other checkout's
   * commands (in container mode also its container's CPU shares); every request through it runs at that priority.
   */
  forCheckout?(checkout: string, options?: { priority?: ProcessPriority }): Exec;
  /** The sandbox's network policy and what it refused so far (sandboxed check execs only). */
  egressReport?(): EgressReport;
  /**
   * Get ready for the job's first command while the run does something else (its clone): what that command would
   * otherwise wait for (the sandbox's probe, the job's home and temp folders, the network bridge). Resolves when
   * that is done and never rejects: a failure here is met again, and reported, by the first command.
   */
  prepare?(): Promise<void>;
  /** Release what this exec holds for its job (container mode: remove the container). Idempotent. */
  close?(): Promise<void>;
  /**
   * Start `req`'s process now, with a pipe on its fd 3 that it is expected to wait on (see exec/waiting-process): a
   * sandbox set up ahead of its command, which is handed over later. Its output is collected from the start.
   */
  startWaiting?(req: ExecRequest): WaitingProcess;
  /**
   * Get a sandbox ready, ahead, for a later request of this shape (its folder, environment and output cap: the command
   * itself is not known yet); see exec/sandbox. Never fails: a later request that finds nothing ready starts its own.
   */
  prestart?(shape: ExecRequest): void;
  /**
   * Where tools an implied setup step installs (`uv`, `poetry`) are kept for the repository's later jobs, and the
   * job's home they are copied into (host folders; see src/checks/tool-shelf.ts); null where the sandbox keeps none
   * (container mode, no sandbox, no job home) or the repository is not known yet.
   */
  toolShelf?(): Promise<ToolShelfPlace | null>;
}

/** A process started ahead, waiting on its fd 3 for one line (see exec/waiting-process). */
export interface WaitingProcess {
  /**
   * Write `line` (and a newline) to its fd 3, close it, and wait for the process to end: the {@link Exec.run} result,
   * its timeout counted from now. Null when the process had already ended (nothing was handed over): run the request
   * the ordinary way instead.
   */
  hand(line: string, opts: Pick<ExecRequest, "timeoutMs" | "signal" | "urgent">): Promise<ExecResult | null>;
  /** Kill it, unused, with everything it started; resolves once it has ended. Idempotent. */
  discard(): Promise<void>;
  /** The process id while it runs (tests). */
  readonly pid: number | undefined;
}

/** A repository's tools shelf and the job's home (host paths), and how long a failed install is not tried again. */
export interface ToolShelfPlace {
  /** The repository's shelf (under the cache dir, hidden from every sandbox). */
  dir: string;
  /** The job's `$HOME` on the host (mounted as the sandbox's home). */
  home: string;
  /** A failed install for want of the network is not tried again for this long (AIDER_BOT_TOOL_RETRY_MINUTES). */
  retryAfterMs: number;
  /**
   * What the job's sandbox may reach (the policy and every list that widens it), as text: an install's failure
   * remembered under another setting is not used, so an operator or a repository that allows the index gets a try at
   * once.
   */
  network?: string;
}

/**
 * What a sandbox may reach on the network (see src/egress/): `none` (loopback only), `registries` (package
 * registries only, through the app's filtering proxy) or `open` (the host's network).
 */
export type NetworkPolicy = "none" | "registries" | "open";

/** Why the egress proxy refused a connection: a host off the list, an address never reached, a TLS name that differs. */
export type BlockKind = "not-allowed" | "address" | "tls-name";

/** The connections refused for one host (`host:port` when the port is not 80 or 443). */
export interface BlockedHost {
  host: string;
  kind: BlockKind;
  reason: string;
  connections: number;
}

/** What a run's sandbox network was and what it refused, for the status comment, the transcript and the model. */
export interface EgressReport {
  policy: NetworkPolicy;
  /** Why the policy in force differs from the one set (no forwarder on this host, the proxy did not start). */
  note?: string;
  blocked: BlockedHost[];
  /** Whether a repository may add hosts (`sandbox.network.allow`). */
  repositoryMayAdd: boolean;
  /** The hosts the repository's `sandbox.network.allow` added. */
  added: readonly string[];
}
