import { providerOf } from "../llm/provider-of.js";
import path from "node:path";
import { runCoder } from "../coder/run-coder.js";
import type { CheckCommandSpec, CoderOptions, CoderResult } from "../coder/types.js";
import type { InstructionSet } from "../coder/repo-instructions.js";
import { settingsCoderOptions } from "../run/code/settings-coder-options.js";
import { runTrailers } from "../run/publish/run-trailers.js";
import type { RunSettings } from "../run/run-request.js";
import { composeClients, composeRedactor } from "../compose/compose-clients.js";
import { createCoderDeps } from "../compose/create-coder-deps.js";
import { resolveRunSettings, type ComposedSettings } from "../compose/run-settings.js";
import { readEnv, type ProviderEnv, type RunEnv } from "../config/env.js";
import { parseRepoConfig, type RepoConfig } from "../config/repo-config.js";
import { loadInstructions } from "../context/load-instructions.js";
import type { EditFormatName } from "../edits/types.js";
import type { Exec } from "../exec/types.js";
import { loadTokenizer } from "../llm/count-tokens.js";
import { createConfinedReader } from "../workspace/confined-reader.js";
import { createGit } from "../workspace/create-git.js";
import { CLI_INSTRUCTIONS_TOKENS, checkoutInstructions } from "./checkout-instructions.js";
import { cliCheckKeys, cliCheckSpecs, readCheckoutConfig, renderCliChecks, resolveCliChecks } from "./cli-checks.js";
import { defaultCacheDir } from "./default-cache-dir.js";
import { UsageError } from "./exit-code.js";
import { renderCliSummary } from "./render-cli-summary.js";

export interface RunCommandOptions {
  repo: string;
  message: string;
  file: string[];
  read: string[];
  editFormat?: EditFormatName;
  model?: string;
  weakModel?: string;
  lintCmd: string[];
  testCmd?: string;
  /** `--checks off`: run only the commands named by flags or the checkout's config; nothing discovered. */
  checks?: "auto" | "off";
  /** `--auto-test` / `--no-auto-test`; unset: the checkout's `auto_test`, else on when there is a test command. */
  autoTest?: boolean;
  maxReflections: number;
  mapTokens: number;
  commit: boolean;
  json: boolean;
  /** `--no-instructions`: do not read AGENTS.md, CONVENTIONS.md, CLAUDE.md, .github/copilot-instructions.md. */
  instructions?: boolean;
}

/**
 * `aider-bot run`: one headless request on a local checkout, like `aider --message`. Progress goes to stderr; the
 * summary (or one JSON object with --json) to stdout. Exit 0 when the run changed files or needed no change.
 */
export async function runCommand(
  opts: RunCommandOptions,
  source?: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const env = readEnv(source);
  const root = path.resolve(opts.repo);
  const endpoint = { baseUrl: env.openaiBaseUrl, apiKey: env.openaiApiKey };
  // The run's one redactor, from the composition root: the model keys are kept out of model requests, commit
  // messages and what this command prints, even if a file or a command's output carries one.
  const models = { endpoint, providers: env };
  const redactor = cliRedactor(env);
  // The run's git and check commands are started by a small helper process (exec/spawn-helper), not by this one.
  const clients = composeClients({ redactor, source: env.source, models });
  const { exec } = clients;
  await checkRepo(exec, root, opts.repo);
  await loadTokenizer();
  const checkout = await readCheckoutConfig(root);
  const settings = cliSettings(env, opts, checkout);
  const s = settings.run;
  if (providerOf(s.model).provider === "openai" && !env.openaiApiKey && env.openaiBaseUrl.includes("api.openai.com")) {
    throw new UsageError(
      "OPENAI_API_KEY is not set. Set it (and OPENAI_BASE_URL for another OpenAI-compatible endpoint), or name a model of another provider (anthropic/…, bedrock/…, vertex/…, azure/…).",
    );
  }
  const llm = await clients.llm({ settings: settings.llm, fallbackModels: s.fallbackModels });
  const say = (line: string) => {
    if (!opts.json || env.progress) process.stderr.write(`${redactor.redact(line)}\n`);
  };
  say(`aider-bot: ${s.model}, ${s.editFormat} edits, repo ${root}`);
  // The same plan `aider-bot checks` prints: the checkout's config and flags, the rest discovered from the checkout.
  const checks = await resolveCliChecks(root, s, opts);
  for (const line of renderCliChecks(checks, s.autoTest)) say(`  ${line}`);
  const deps = createCoderDeps({
    root,
    exec,
    git: createGit(exec, undefined, { redact: redactor.redact }),
    llm,
    commitModel: s.weakModel ?? s.model,
    protectedPaths: s.protectedPaths,
    // One folder per checkout under AIDER_BOT_CACHE_DIR too: repositories sharing one cache file would evict each other.
    cacheDir: defaultCacheDir(root, env.source),
    gitContentIds: settings.gitContentIds,
    ...(settings.mapThreads !== undefined ? { mapThreads: settings.mapThreads } : {}),
    onProgress: (p) => {
      if (p.stage === "thinking" && p.delta) return;
      say(`  [round ${p.round}] ${p.stage}${p.detail ? `: ${p.detail}` : ""}`);
    },
  });
  checkReads(root, opts.read);
  const instructions = await cliInstructions(root, opts, () => deps.workspace.listFiles(), say);
  const options = cliCoderOptions(s, opts, root, { checks: cliCheckSpecs(checks), instructions });
  const result: CoderResult = await runCoder(options, deps);
  process.stdout.write(redactor.redact(opts.json ? `${JSON.stringify(cliJson(result))}\n` : renderCliSummary(result)));
  return result.outcome === "changed" || result.outcome === "no-changes" ? 0 : 1;
}

/** A CLI run's one redactor (its composition root's): every model key of the user's environment. */
export function cliRedactor(env: RunEnv & ProviderEnv & { openaiBaseUrl: string; openaiApiKey?: string | undefined }) {
  return composeRedactor({
    secrets: [],
    models: { endpoint: { baseUrl: env.openaiBaseUrl, apiKey: env.openaiApiKey }, providers: env },
  });
}

/**
 * What the coder is given in a CLI run: the settings' part from the same function as the App's and the Action's
 * runs (budget and time limit, setup commands, prompt-cache key), the request from the flags. The commit names the
 * run with the run trailer the App's commits carry; the user commits as themselves, so no one is a co-author.
 */
export function cliCoderOptions(
  s: RunSettings,
  opts: Pick<RunCommandOptions, "message" | "file" | "read" | "commit">,
  root: string,
  extra: { checks: CheckCommandSpec[]; instructions?: InstructionSet | undefined },
  runId = `cli-${Date.now().toString(36)}`,
): CoderOptions {
  return {
    ...settingsCoderOptions(s, root),
    message: opts.message,
    files: opts.file,
    readFiles: opts.read,
    ...(extra.instructions ? { instructions: extra.instructions } : {}),
    checkCommands: extra.checks,
    askOnly: false,
    commit: opts.commit,
    trailers: runTrailers(runId),
  };
}

/**
 * The CLI's flags as a repository config: the defaults of `.github/aider.yml`, the check keys and limits (time,
 * command time, budget) of the checkout's own `.github/aider.yml` (`checkout`), and the flags on top, so a CLI run gets its settings from the same resolution as
 * the App's and the Action's (compose/run-settings). Not validated again: the flags have their own checks
 * (commander's), and their bounds are the CLI's.
 */
export function cliRepoConfig(
  opts: Omit<RunCommandOptions, "repo" | "message" | "file" | "read" | "json">,
  checkout: RepoConfig | null = null,
): RepoConfig {
  const defaults = parseRepoConfig({});
  if (!defaults.ok) throw new Error("the repository config's defaults do not validate");
  return {
    ...defaults.config,
    ...(opts.model ? { model: opts.model } : {}),
    ...(opts.weakModel ? { weak_model: opts.weakModel } : {}),
    edit_format: opts.editFormat ?? "diff",
    ...cliCheckKeys(checkout, opts),
    // The checkout's own limits, as the App and the Action take them from the default branch's file.
    ...(checkout
      ? { timeout: checkout.timeout, command_timeout: checkout.command_timeout, budget: checkout.budget }
      : {}),
    ...(opts.autoTest !== undefined ? { auto_test: opts.autoTest } : {}),
    max_reflections: opts.maxReflections,
    map_tokens: opts.mapTokens,
  };
}

/** The run's settings: the environment's (models, fallbacks, prices, map threads) and the flags', as for every driver. */
export function cliSettings(
  env: RunEnv,
  opts: Parameters<typeof cliRepoConfig>[0],
  checkout: RepoConfig | null = null,
): ComposedSettings {
  const settings = resolveRunSettings(env, cliRepoConfig(opts, checkout), "cli");
  // Only a flag naming a model outside `allowed_models` is refused, and the CLI passes none as a flag.
  if (!settings.ok) throw new UsageError(settings.message);
  return settings.value;
}

/** `--repo` must be a git checkout. */
async function checkRepo(exec: Exec, root: string, given: string): Promise<void> {
  // The spawn fails when --repo does not exist; for the user that is the same "not a git checkout" as a failed probe.
  // git failing to start at all reads the same to the user: the folder cannot be used as a checkout.
  const probe = await exec.run({ command: "git", args: ["rev-parse", "--show-toplevel"], cwd: root }).catch(() => null);
  if (!probe || probe.exitCode !== 0) throw new UsageError(`--repo ${given} is not a git checkout`);
}

/** `--read` files must exist: a typo would otherwise leave the model without the file, silently. */
function checkReads(root: string, reads: readonly string[]): void {
  const reader = createConfinedReader(root);
  for (const p of reads) {
    const got = reader.read(p);
    if (!got.ok)
      throw new UsageError(`--read ${p}: ${got.reason === "missing" ? "no such file in the checkout" : got.message}`);
  }
}

/** The repository's own instruction files, from this checkout, unless `--no-instructions`. */
async function cliInstructions(
  root: string,
  opts: Pick<RunCommandOptions, "instructions">,
  listFiles: () => Promise<string[]>,
  say: (line: string) => void,
) {
  if (opts.instructions === false) return undefined;
  const instructions = await loadInstructions(checkoutInstructions(root, listFiles), {
    auto: true,
    read: [],
    maxTokens: CLI_INSTRUCTIONS_TOKENS,
    from: "the checkout",
  });
  if (instructions.files.length) say(`  instructions: ${instructions.files.map((f) => f.path).join(", ")}`);
  for (const note of instructions.notes) say(`  instructions: ${note}`);
  return instructions;
}

/** `--json`: one object with the outcome and what a script needs of it. */
function cliJson(result: CoderResult): Record<string, unknown> {
  return {
    outcome: result.outcome,
    editedFiles: "editedFiles" in result ? result.editedFiles : [],
    commit: result.outcome === "changed" ? result.commit : null,
    reflections: result.reflections,
    // The repository's commands as they last ran (or why not), with where each came from.
    checks: (result.checkRuns ?? []).map((r) => ({
      kind: r.kind,
      command: r.command,
      ...(r.source ? { source: r.source } : {}),
      status: r.status,
    })),
    tokens: result.tokens,
    costUsd: result.costUsd,
    ...(result.models ? { models: result.models } : {}),
    ...(result.outcome === "llm-error" || result.outcome === "budget-exceeded" || result.outcome === "timed-out"
      ? { message: result.message }
      : {}),
    ...(result.outcome === "edit-failed"
      ? { failures: result.failures.map((f) => ({ path: f.path, reason: f.reason, message: f.message })) }
      : {}),
    ...(result.outcome === "checks-failed"
      ? { check: { kind: result.report.kind, command: result.report.command, output: result.report.output } }
      : {}),
  };
}
