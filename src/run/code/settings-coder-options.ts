import { createHash } from "node:crypto";
import type { CoderOptions } from "../../coder/types.js";
import type { RunSettings } from "../run-request.js";

/** The coder options a run's settings decide, whichever driver runs it (the rest is the request's own). */
export type SettingsCoderOptions = Pick<
  CoderOptions,
  | "editFormat"
  | "model"
  | "weakModel"
  | "lintCommands"
  | "testCommand"
  | "autoTest"
  | "setupCommands"
  | "maxReflections"
  | "mapTokens"
  | "promptCache"
  | "cacheKey"
  | "protectedPaths"
  | "budget"
  | "commandTimeoutMs"
>;

/**
 * What the coder is given from the run's settings: the same function for the App's, the Action's and the CLI's
 * runs, so a budget, a timeout or a setup command cannot be dropped by one of them. `cacheScope` names what shares a
 * prompt cache: `owner/repo` on GitHub, the checkout's folder for the CLI.
 */
export function settingsCoderOptions(s: RunSettings, cacheScope: string): SettingsCoderOptions {
  return {
    editFormat: s.editFormat,
    model: s.model,
    weakModel: s.weakModel,
    lintCommands: s.lint,
    testCommand: s.test,
    autoTest: s.autoTest,
    setupCommands: s.setup,
    maxReflections: s.maxReflections,
    mapTokens: s.mapTokens,
    ...(s.promptCache === false ? { promptCache: false } : {}),
    // One key per repository, not per run: OpenAI and Azure route by key and prefix, so a later run on the same
    // repository (same instructions, files, map) can read what an earlier one cached. A hash: no name leaves.
    cacheKey: `aider-bot-${createHash("sha256").update(cacheScope).digest("hex").slice(0, 16)}`,
    protectedPaths: s.protectedPaths,
    budget: { ...s.budget, maxWallMs: s.timeoutMs },
    commandTimeoutMs: s.commandTimeoutMs,
  };
}
