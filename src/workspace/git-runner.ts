import type { Exec } from "../exec/types.js";
import { gitAuthEnv } from "./auth-env.js";
import { GitError } from "./git-errors.js";
import { redactSecrets } from "./redact.js";

export interface GitRunOptions {
  /** Installation token for this one command (sent as an HTTP header, see auth-env). */
  token?: string;
  /** Return a failed result instead of throwing `GitError`. */
  allowFail?: boolean;
  env?: Record<string, string>;
  input?: string;
  timeoutMs?: number;
  /** Aborting kills the command and every process it started (a fetch's transport too): it then fails, or with `allowFail` returns not ok. */
  signal?: AbortSignal;
}

export interface GitRunResult {
  ok: boolean;
  exitCode: number | null;
  stdout: string;
  /** stdout + stderr interleaved, token redacted: safe to show. */
  output: string;
}

export type GitRun = (cwd: string, args: readonly string[], options?: GitRunOptions) => Promise<GitRunResult>;

/**
 * The one way workspace code runs git: through `Exec` (which passes only allow-listed variables, so no ambient
 * GIT_* reaches git), prompts off, pathspecs literal (a file named `*.ts` is that file, not a glob), paths
 * unquoted, and every surfaced text redacted of the token. `configArgs` (`-c key=value` pairs) go before every command.
 */
export function createGitRunner(
  exec: Exec,
  baseEnv: Readonly<Record<string, string>> = {},
  configArgs: readonly string[] = [],
): GitRun {
  return async (cwd, args, options = {}) => {
    const r = await exec.run({
      command: "git",
      // With a token in the env, no hook may run: a script of the repository could have planted one to read it.
      // No automatic maintenance: after a commit or fetch git would start `git maintenance run --auto`, one more
      // process on a clone that lives for one run.
      args: [
        "-c",
        "core.quotePath=false",
        "-c",
        "maintenance.auto=false",
        ...(options.token ? ["-c", "core.hooksPath=/dev/null"] : []),
        ...configArgs,
        ...args,
      ],
      cwd,
      env: { ...gitAuthEnv(options.token), GIT_LITERAL_PATHSPECS: "1", ...baseEnv, ...options.env },
      timeoutMs: options.timeoutMs ?? 300_000,
      // Diffs, patches and file lists can be large; a truncated one would be silently wrong.
      maxOutputBytes: 200_000_000,
      ...(options.input !== undefined ? { input: options.input } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const stopped = options.signal?.aborted ? "stopped" : "";
    const output = redactSecrets(r.output || r.spawnError || (r.timedOut ? "timed out" : stopped), [options.token]);
    const ok = r.exitCode === 0;
    if (!ok && !options.allowFail) {
      const tail = output.trim().split("\n").slice(-8).join("\n");
      const why = r.timedOut ? " (timed out)" : stopped ? " (stopped)" : "";
      throw new GitError(`git ${args[0] ?? ""} failed${why}: ${tail}`, output);
    }
    return { ok, exitCode: r.exitCode, stdout: r.stdout, output };
  };
}
