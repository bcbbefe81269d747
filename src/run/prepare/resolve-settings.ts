import type { CommandFlags } from "../../commands/parse-command.js";
import type { RepoConfig } from "../../config/repo-config.js";
import type { EditFormatName } from "../../edits/types.js";
import { fail, ok, type Result } from "../../result.js";
import { checkSettingsOf } from "./resolve-checks.js";
import type { RunSettings } from "../run-request.js";

/**
 * Settings for one run from the repo config, the command's flags and the app's defaults. `--model` must be one of
 * `allowed_models` (or the configured model): a comment can never pick an arbitrary model, endpoint or key.
 */
export function resolveSettings(
  config: RepoConfig,
  flags: Partial<CommandFlags>,
  defaults: { model: string; weakModel?: string; fallbackModels?: string[]; promptCache?: boolean },
): Result<RunSettings, "model-not-allowed"> {
  const configured = config.model ?? defaults.model;
  let model = configured;
  if (flags.model) {
    const allowed = new Set([configured, ...config.allowed_models]);
    if (!allowed.has(flags.model)) {
      return fail(
        "model-not-allowed",
        `Model \`${flags.model}\` is not allowed here. Allowed: ${[...allowed].map((m) => `\`${m}\``).join(", ")} (set \`allowed_models\` in \`.github/aider.yml\`).`,
      );
    }
    model = flags.model;
  }
  // `edit_format: architect`: the main model plans; the editor uses `editor_edit_format`, else the
  // configured format, else diff (Aider: the editor model's own format).
  const architect = (flags.editFormat ?? config.edit_format) === "architect";
  const editFormat = (
    architect ? (config.editor_edit_format ?? "diff") : (flags.editFormat ?? config.edit_format)
  ) as EditFormatName;
  return ok({
    model,
    weakModel: config.weak_model ?? defaults.weakModel,
    editFormat,
    ...(architect ? { architect: true } : {}),
    editorModel: config.editor_model ?? model,
    editorEditFormat: config.editor_edit_format ?? editFormat,
    mapTokens: config.map_tokens,
    // Off when the repository (`cache: off`) or the operator (`AIDER_BOT_PROMPT_CACHE=off`) turns it off.
    ...(config.cache === "off" || defaults.promptCache === false ? { promptCache: false } : {}),
    maxReflections: config.max_reflections,
    ...checkSettingsOf(config),
    baseline: config.baseline,
    // Tests found by discovery run after each edit like configured ones, unless `auto_test: false` says otherwise.
    autoTest: config.auto_test ?? (Boolean(config.test?.length) || config.checks === "auto"),
    timeoutMs: config.timeout * 60_000,
    commandTimeoutMs: config.command_timeout * 60_000,
    protectedPaths: config.protected_paths,
    budget: {
      ...(config.budget.max_tokens ? { maxTokens: config.budget.max_tokens } : {}),
      ...(config.budget.max_usd ? { maxUsd: config.budget.max_usd } : {}),
    },
    spendBudget: config.budget,
    ...((config.fallback_models ?? defaults.fallbackModels)
      ? { fallbackModels: config.fallback_models ?? defaults.fallbackModels }
      : {}),
    requireGreenChecks: config.require_green_checks,
    draft: config.pull_request.draft,
    branchPrefix: config.pull_request.branch_prefix,
    instructions: { auto: config.instructions, read: config.read, maxTokens: config.context.instructions },
    ...(config.vision !== undefined ? { vision: config.vision } : {}),
    ...(config.sandbox.image ? { sandboxImage: config.sandbox.image } : {}),
    ...(config.sandbox.network?.allow.length ? { networkAllow: config.sandbox.network.allow } : {}),
    commitSigning: config.commit.signing,
  });
}
