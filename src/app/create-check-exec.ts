import os from "node:os";
import path from "node:path";
import type { Logger } from "pino";
import type { AppEnv } from "../config/env.js";
import { createSandboxedExec, probeSandbox } from "../exec/sandbox.js";
import type { Exec, ExecRequest } from "../exec/types.js";

/**
 * The exec the repository's lint/test/setup commands run through. With AIDER_BOT_SANDBOX=auto (default) it probes
 * bubblewrap once and sandboxes when it works: home, the App key's folder and other jobs' checkouts are hidden and
 * the system is read-only. `on` refuses to run commands without it; `off` runs them with the allow-listed env only.
 */
export function createCheckExec(env: AppEnv, exec: Exec, log: Logger): Exec {
  if (env.sandbox === "off") return exec;
  const hide = [os.homedir(), ...(env.privateKeyPath ? [path.dirname(path.resolve(env.privateKeyPath))] : [])];
  const sandboxed = createSandboxedExec(exec, { hide, network: env.sandboxNetwork });
  let available: Promise<boolean> | null = null;
  return {
    async run(req: ExecRequest) {
      available ??= probeSandbox(exec).then((ok) => {
        log.info({ sandbox: ok ? "bubblewrap" : "none" }, ok ? "repository commands run in a bubblewrap sandbox" : "bubblewrap unavailable: repository commands run without a sandbox");
        return ok;
      });
      if (await available) return sandboxed.run(req);
      if (env.sandbox === "on") {
        return { exitCode: null, output: "", stdout: "", stderr: "", timedOut: false, durationMs: 0, spawnError: "AIDER_BOT_SANDBOX=on but bubblewrap is not available on the app's host (install it, or allow user namespaces)" };
      }
      return exec.run(req);
    },
  };
}
