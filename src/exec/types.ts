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
}

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
}

/**
 * Where repository commands run: inside bubblewrap, without a sandbox because the operator said so
 * (`AIDER_BOT_SANDBOX=off`), or not at all because the sandbox cannot run here (the reason follows).
 */
export type SandboxMode = "bubblewrap" | "off" | `unavailable: ${string}`;

export interface Exec {
  run(req: ExecRequest): Promise<ExecResult>;
  /** Set on the exec that runs repository commands (see `app/create-check-exec`); absent on a plain exec. */
  sandboxMode?(): Promise<SandboxMode>;
}
