import type { CommandFlags } from "../commands/parse-command.js";
import type { AppEnv, RunEnv } from "../config/env.js";
import type { RepoConfig } from "../config/repo-config.js";
import type { Result } from "../result.js";
import { resolveSettings } from "../run/prepare/resolve-settings.js";
import type { RunSettings } from "../run/run-request.js";

/** Who starts the run: the GitHub App (a job process), the GitHub Action (a workflow step), the CLI (`aider-bot run`). */
export type Driver = "app" | "action" | "cli";

/**
 * Where a run's repository commands (setup, lint, test) run: the App's `AIDER_BOT_SANDBOX` choice; `runner`: straight
 * on the Actions runner (a throwaway machine; a fork's commands not at all); `local`: on the user's own machine (CLI).
 */
export type SandboxChoice = AppEnv["sandbox"] | "runner" | "local";

/** What the environment and the driver decide about a run, beside the request's own {@link RunSettings}. */
export interface DriverSettings {
  /** The models' client: the settings table file, the operator's prices (over the table's), prefill. */
  llm: { modelSettingsFile?: string; prices: Record<string, { input: number; output: number }>; allowPrefill: boolean };
  /** Worker threads for the repo map's parsing (`AIDER_BOT_MAP_THREADS`; undefined: cores − 1, at most 7). */
  mapThreads?: number;
  /** Key the map's tag cache by git blob ids (a fresh clone per run) instead of size+mtime (a long-lived checkout). */
  gitContentIds: boolean;
  sandbox: SandboxChoice;
  /**
   * Where commands not named in the config are discovered: the default branch (runs on GitHub: a pull request's head
   * never decides what runs), the local checkout (the CLI, on the user's own files), or nowhere.
   */
  checkPlan: "default-branch" | "checkout" | "configured-only";
  /** Model calls reserve and settle through the operator's spend ledger: only the App keeps one. */
  spendGuard: boolean;
  /** The run's transcript is stored for `aider-bot transcript` (the App's cache outlives the run). */
  transcripts: boolean;
}

/** One run's settings: the request's (repo config + flags + defaults) and the driver's. */
export interface ComposedSettings extends DriverSettings {
  run: RunSettings;
}

/** The model defaults a repo config falls back on: the same for every driver (triage, schedules, dispatch, CLI). */
export function runDefaults(
  env: Pick<RunEnv, "model" | "weakModel" | "fallbackModels"> & Partial<Pick<RunEnv, "promptCache">>,
): {
  model: string;
  weakModel?: string;
  fallbackModels?: string[];
  promptCache?: boolean;
} {
  return {
    model: env.model,
    ...(env.promptCache === "off" ? { promptCache: false } : {}),
    ...(env.weakModel ? { weakModel: env.weakModel } : {}),
    ...(env.fallbackModels !== undefined ? { fallbackModels: env.fallbackModels } : {}),
  };
}

/** The driver's part of a run's settings from the environment (pure). */
export function driverSettings(env: RunEnv & Partial<Pick<AppEnv, "sandbox">>, driver: Driver): DriverSettings {
  const onGitHub = driver !== "cli";
  return {
    llm: {
      ...(env.modelSettingsFile ? { modelSettingsFile: env.modelSettingsFile } : {}),
      prices: env.prices ?? {},
      allowPrefill: env.allowPrefill,
    },
    ...(env.mapThreads !== undefined ? { mapThreads: env.mapThreads } : {}),
    gitContentIds: onGitHub,
    sandbox: driver === "app" ? (env.sandbox ?? "auto") : driver === "action" ? "runner" : "local",
    checkPlan: onGitHub ? "default-branch" : "checkout",
    spendGuard: driver === "app",
    transcripts: driver === "app",
  };
}

/**
 * Everything that decides how one run behaves, from the environment, the repository's config (for the CLI: its
 * flags, see `cliRepoConfig`) and the driver. Pure: the three drivers get the same settings for the same inputs,
 * apart from what {@link driverSettings} sets apart on purpose (sandbox, check discovery, ledger, transcripts).
 */
export function resolveRunSettings(
  env: RunEnv & Partial<Pick<AppEnv, "sandbox">>,
  config: RepoConfig,
  driver: Driver,
  flags: Partial<CommandFlags> = {},
): Result<ComposedSettings, "model-not-allowed"> {
  const run = resolveSettings(config, flags, runDefaults(env));
  if (!run.ok) return run;
  return { ok: true, value: { run: run.value, ...driverSettings(env, driver) } };
}
