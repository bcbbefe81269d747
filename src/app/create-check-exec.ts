import os from "node:os";
import path from "node:path";
import type { Logger } from "pino";
import type { AppEnv } from "../config/env.js";
import { createSandboxedExec, sandboxProblem } from "../exec/sandbox.js";
import type { Exec, ExecRequest, ExecResult, SandboxMode } from "../exec/types.js";

export interface CheckExecOptions {
  /** Why the sandbox cannot run, or null when it can (default: run bwrap once and see). Tests inject a failure. */
  probe?: () => Promise<string | null>;
  /** The app's own folder (its `.env` may hold the secrets); default the process's working directory. */
  appDir?: string;
}

/**
 * The exec the repository's lint/test/setup commands run through. It fails closed: unless the operator sets
 * AIDER_BOT_SANDBOX=off, commands run only inside bubblewrap; when bubblewrap cannot run here (`auto` or `on`), they
 * are not run at all and `sandboxMode()` says why, so the coder skips checks and the status comment says so.
 * Inside, the home folder, the App key's folder, the work root (other jobs' checkouts), the OS temp dir, the cache
 * dir and the app's folder are hidden; only this job's checkout is visible and writable.
 */
export function createCheckExec(env: AppEnv, exec: Exec, log: Logger, options: CheckExecOptions = {}): Exec {
  if (env.sandbox === "off") {
    log.warn({ sandbox: "off" }, "AIDER_BOT_SANDBOX=off: repository commands run without a sandbox and can read what the app's user can read");
    return { run: (req) => exec.run(req), sandboxMode: async () => "off" };
  }
  const hide = [
    os.homedir(),
    os.tmpdir(),
    options.appDir ?? process.cwd(),
    ...(env.workDir ? [env.workDir] : []),
    ...(env.cacheDir ? [env.cacheDir] : []),
    ...(env.privateKeyPath ? [path.dirname(path.resolve(env.privateKeyPath))] : []),
  ];
  const sandboxed = createSandboxedExec(exec, { hide, network: env.sandboxNetwork });
  const probe = options.probe ?? (() => sandboxProblem(exec));
  let mode: Promise<SandboxMode> | null = null;
  const sandboxMode = (): Promise<SandboxMode> =>
    (mode ??= probe().then((problem): SandboxMode => {
      if (problem === null) {
        log.info({ sandbox: "bubblewrap" }, "repository commands run in a bubblewrap sandbox");
        return "bubblewrap";
      }
      log.error(
        { sandbox: "unavailable", reason: problem },
        `bubblewrap unavailable: repository commands (setup, lint, test) are NOT run: ${problem}. Install bubblewrap and allow user namespaces, or set AIDER_BOT_SANDBOX=off to run them unsandboxed.`,
      );
      return `unavailable: ${problem}`;
    }));
  return {
    async run(req: ExecRequest): Promise<ExecResult> {
      const m = await sandboxMode();
      if (m === "bubblewrap") return sandboxed.run(req);
      // Callers check sandboxMode() first; this refusal is the backstop so nothing ever runs unsandboxed.
      return { exitCode: null, output: "", stdout: "", stderr: "", timedOut: false, durationMs: 0, spawnError: `not run: the sandbox is ${m}` };
    },
    sandboxMode,
  };
}
