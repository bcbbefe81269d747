import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";

/** One process the testkit runs (git, for the fake GitHub's reads and writes). */
export interface ProcessRequest {
  command: string;
  args?: readonly string[];
  cwd: string;
  env?: Readonly<Record<string, string>>;
  input?: string;
}

export interface ProcessResult {
  exitCode: number | null;
  /** stdout and stderr interleaved as received. */
  output: string;
  stdout: string;
  stderr: string;
}

/**
 * How the testkit runs processes. The app's `Exec` (src/exec/types.ts) has this shape, so a test hands the fake its
 * spawn helper's exec; the testkit itself imports nothing from src/, so a fake never judges the app with the app's
 * own code and builds on its own.
 */
export interface ProcessRunner {
  run(req: ProcessRequest): Promise<ProcessResult>;
}

/**
 * The variables a testkit process inherits: enough for git to find itself and write temporary files, none of the
 * caller's secrets (the same idea as the app's allow-list).
 */
const PASSED = ["PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "TZ", "USER", "LOGNAME"] as const;

function processEnv(
  source: Readonly<Record<string, string | undefined>>,
  extra: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PASSED) {
    const value = source[name];
    if (value !== undefined) env[name] = value;
  }
  env.PATH ??= "/usr/local/bin:/usr/bin:/bin";
  return { ...env, ...extra };
}

/** Spawn with piped streams, for a caller that must stream (the git CGI bridge). */
export function spawnPiped(
  command: string,
  args: readonly string[],
  options: { cwd: string; sourceEnv: Readonly<Record<string, string | undefined>>; env?: Record<string, string> },
): ChildProcessWithoutNullStreams {
  return spawn(command, [...args], { cwd: options.cwd, env: processEnv(options.sourceEnv, options.env) });
}

/** A runner that starts each process directly (the demo's; tests usually pass their spawn helper's exec). */
export function localRunner(sourceEnv: Readonly<Record<string, string | undefined>>): ProcessRunner {
  return {
    run: (req) =>
      new Promise<ProcessResult>((resolve) => {
        const child = spawn(req.command, [...(req.args ?? [])], {
          cwd: req.cwd,
          env: processEnv(sourceEnv, req.env),
          stdio: [req.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
        });
        let output = "";
        let stdout = "";
        let stderr = "";
        child.stdout?.on("data", (c: Buffer) => ((stdout += c.toString("utf8")), (output += c.toString("utf8"))));
        child.stderr?.on("data", (c: Buffer) => ((stderr += c.toString("utf8")), (output += c.toString("utf8"))));
        child.on("error", (error) => resolve({ exitCode: null, output: error.message, stdout, stderr: error.message }));
        child.on("close", (code) => resolve({ exitCode: code, output, stdout, stderr }));
        if (req.input !== undefined) {
          child.stdin?.on("error", () => undefined);
          child.stdin?.end(req.input);
        }
      }),
  };
}
