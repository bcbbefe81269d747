import { stat } from "node:fs/promises";
import path from "node:path";
import { parse } from "yaml";
import { checkPlanJson, renderCheckPlanText } from "../checks/discover/render-check-plan.js";
import { parseRepoConfig } from "../config/repo-config.js";
import { resolveChecks } from "../run/resolve-checks.js";
import { createLocalRepoReader } from "../workspace/local-repo-reader.js";
import { UsageError } from "./exit-code.js";

export interface ChecksCommandOptions {
  dir: string;
  json: boolean;
}

/**
 * `aider-bot checks [dir]`: the check commands the bot would run on this checkout and where each came from, without
 * running any. Keys of the checkout's `.github/aider.yml` win over discovery as they do in the App; an invalid
 * config is reported and exits 1.
 */
export async function checksCommand(opts: ChecksCommandOptions): Promise<number> {
  const root = path.resolve(opts.dir);
  const info = await stat(root).catch(() => null);
  if (!info?.isDirectory()) throw new UsageError(`${opts.dir} is not a directory`);
  const reader = createLocalRepoReader(root);
  const text = await reader.read(".github/aider.yml");
  let raw: unknown = null;
  try {
    raw = text === null ? null : parse(text);
  } catch (error) {
    process.stderr.write(
      `.github/aider.yml is not valid YAML: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}\n`,
    );
    return 1;
  }
  const config = parseRepoConfig(raw);
  if (!config.ok) {
    process.stderr.write(
      `.github/aider.yml is invalid:\n${config.problems.map((p) => `  ${p.path}: ${p.message}`).join("\n")}\n`,
    );
    return 1;
  }
  const c = config.config;
  const tests = c.test ?? [];
  const resolved = await resolveChecks(
    { setup: c.setup, lint: c.lint, ...(tests.length ? { test: tests[0], tests } : {}), checks: c.checks },
    reader,
  );
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
