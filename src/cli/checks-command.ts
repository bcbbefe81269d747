import { stat } from "node:fs/promises";
import path from "node:path";
import { checkPlanJson, renderCheckPlanText } from "../checks/discover/render-check-plan.js";
import type { RepoConfig } from "../config/repo-config.js";
import { checkSettingsOf } from "../run/prepare/resolve-checks.js";
import { cliCheckKeys, readCheckoutConfig, resolveCliChecks } from "./cli-checks.js";
import { UsageError } from "./exit-code.js";

export interface ChecksCommandOptions {
  dir: string;
  json: boolean;
}

/**
 * `aider-bot checks [dir]`: the check commands the bot would run on this checkout and where each came from, without
 * running any: exactly what `aider-bot run` uses there without flags. Keys of the checkout's `.github/aider.yml` win
 * over discovery as they do in the App (`lint: []`: none); an invalid config is reported and exits 1.
 */
export async function checksCommand(opts: ChecksCommandOptions): Promise<number> {
  const root = path.resolve(opts.dir);
  const info = await stat(root).catch(() => null);
  if (!info?.isDirectory()) throw new UsageError(`${opts.dir} is not a directory`);
  let checkout: RepoConfig | null;
  try {
    checkout = await readCheckoutConfig(root);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
  // What `aider-bot run` uses on this checkout without flags: the same keys, the same resolution.
  const resolved = await resolveCliChecks(root, checkSettingsOf(cliCheckKeys(checkout, {})), {});
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(checkPlanJson(resolved.plan), null, 2)}\n`);
    return 0;
  }
  const origin =
    resolved.origin === "off"
      ? "checks: off in .github/aider.yml: only the built-in syntax check runs."
      : resolved.origin === "none"
        ? "No lint or test command found."
        : `Commands (${resolved.origin}):`;
  process.stdout.write(`${origin}\n${renderCheckPlanText(resolved.plan)}`);
  return 0;
}
