import type { Logger } from "pino";
import type { AppEnv } from "../config/env.js";
import type { Exec } from "../exec/types.js";
import { createCheckExec } from "./create-check-exec.js";
import type { NetworkPolicy } from "../exec/types.js";

/** What `/healthz` says about where repository commands run (the status comment of each run names its image). */
export interface SandboxSummary {
  /** AIDER_BOT_SANDBOX as set. */
  configured: AppEnv["sandbox"];
  /** What it resolved to on this host (`probing` until the first probe answered). */
  mode: "container" | "bubblewrap" | "off" | "unavailable" | "probing";
  /** Container mode: the engine and the image used when a repository names none. */
  engine?: AppEnv["containerEngine"];
  defaultImage?: string;
  /** Why no sandbox can run here. */
  reason?: string;
  /**
   * The network policy sandboxes get (AIDER_BOT_SANDBOX_NETWORK; `none` when `registries` cannot run here, e.g. no
   * socat); `open` when the sandbox is off.
   */
  network: NetworkPolicy;
}

/**
 * The sandbox a job of this app would get, probed once in the background (the same probes as a job's check exec).
 * `current()` never waits: until the probe answers it says `probing`. `close()` stops a probe still running (its
 * processes are killed) and resolves once it has settled, so a server shut down leaves no process behind.
 */
export function createSandboxSummary(
  env: AppEnv,
  exec: Exec,
  log: Logger,
): { current(): SandboxSummary; close(): Promise<void> } {
  const stop = new AbortController();
  const stoppable: Exec = {
    run: (req) => exec.run({ ...req, signal: req.signal ? AbortSignal.any([req.signal, stop.signal]) : stop.signal }),
  };
  const checkExec = createCheckExec(env, stoppable, log);
  const network: NetworkPolicy = checkExec.egressReport?.().policy ?? "open";
  let summary: SandboxSummary = { configured: env.sandbox, mode: "probing", network };
  const probe = checkExec.sandboxMode!()
    .then((mode) => {
      if (stop.signal.aborted) return;
      if (mode === "off" || mode === "bubblewrap") summary = { configured: env.sandbox, mode, network };
      else if (mode.startsWith("container"))
        summary = {
          configured: env.sandbox,
          mode: "container",
          engine: env.containerEngine,
          defaultImage: env.defaultImage,
          network,
        };
      else
        summary = {
          configured: env.sandbox,
          mode: "unavailable",
          reason: mode.slice("unavailable: ".length),
          network,
        };
    })
    .catch((error: unknown) => log.warn({ err: error }, "the sandbox probe for /healthz failed"));
  return {
    current: () => summary,
    close: async () => {
      stop.abort();
      await probe;
      await checkExec.close?.();
    },
  };
}
