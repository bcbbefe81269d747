import path from "node:path";
import pino from "pino";
import { createCheckExec } from "../../src/app/create-check-exec.js";
import { readEnv } from "../../src/config/env.js";
import { createExec } from "../../src/exec/create-exec.js";
import type { Exec } from "../../src/exec/types.js";

/**
 * One job's check exec in bubblewrap, as each job process makes it: jobs under `<root>/work`, the caches (package
 * caches, tools shelves) under `<root>/cache`, no network. `hostEnv` is the app's own environment; `env` adds settings.
 */
export function bubblewrapJobExec(
  root: string,
  hostEnv: NodeJS.ProcessEnv = process.env,
  env: Record<string, string> = {},
): Exec {
  return createCheckExec(
    readEnv({
      AIDER_BOT_SANDBOX: "bubblewrap",
      AIDER_BOT_WORK_DIR: path.join(root, "work"),
      AIDER_BOT_CACHE_DIR: path.join(root, "cache"),
      AIDER_BOT_SANDBOX_NETWORK: "none",
      ...env,
    }),
    createExec({ sourceEnv: hostEnv }),
    pino({ level: "silent" }),
    { appDir: path.join(root, "app") },
  );
}
