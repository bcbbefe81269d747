import path from "node:path";
import { runCoder } from "../coder/run-coder.js";
import type { CoderResult } from "../coder/types.js";
import { readEnv } from "../config/env.js";
import type { EditFormatName } from "../edits/types.js";
import { DEFAULT_PROTECTED_PATHS } from "../edits/path-policy.js";
import { startSpawnHelper } from "../exec/spawn-helper.js";
import { createLlmClient } from "../llm/create-llm-client.js";
import { pricesOf } from "../llm/price-table.js";
import { readModelSettings } from "../llm/read-model-settings.js";
import { routeModels } from "../llm/route-models.js";
import { loadTokenizer } from "../llm/count-tokens.js";
import { createCoderDeps } from "../compose/create-coder-deps.js";
import { createGit } from "../workspace/create-git.js";
import { loadInstructions } from "../context/load-instructions.js";
import { createConfinedReader } from "../workspace/confined-reader.js";
import { CLI_INSTRUCTIONS_TOKENS, checkoutInstructions } from "./checkout-instructions.js";
import { defaultCacheDir } from "./default-cache-dir.js";
import { UsageError } from "./exit-code.js";
import { renderCliSummary } from "./render-cli-summary.js";
import { processRedactor } from "../security/process-redactor.js";

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
  autoTest: boolean;
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
  // The run's git and check commands are started by a small helper process (exec/spawn-helper), not by this one.
  const exec = startSpawnHelper(env.source).exec({ sourceEnv: env.source });
  // The spawn fails when --repo does not exist; for the user that is the same "not a git checkout" as a failed probe.
  // git failing to start at all reads the same to the user: the folder cannot be used as a checkout.
  const probe = await exec.run({ command: "git", args: ["rev-parse", "--show-toplevel"], cwd: root }).catch(() => null);
  if (!probe || probe.exitCode !== 0) throw new UsageError(`--repo ${opts.repo} is not a git checkout`);
  const isOpenAi = env.openaiBaseUrl.includes("api.openai.com");
  if (!env.openaiApiKey && isOpenAi) {
    throw new UsageError(
      "OPENAI_API_KEY is not set. Set it (and OPENAI_BASE_URL for another OpenAI-compatible endpoint).",
    );
  }
  // The one redactor keeps the key out of model requests and commit messages even if a file or output carries it.
  processRedactor.add(env.openaiApiKey);
  await loadTokenizer();
  const model = opts.model ?? env.model;
  // The model settings table's prices under AIDER_BOT_PRICES; AIDER_BOT_FALLBACK_MODELS take a failing model's calls.
  const settings = await readModelSettings(env.modelSettingsFile);
  const prices = { ...pricesOf(settings), ...(env.prices ?? {}) };
  const client = createLlmClient({
    baseUrl: env.openaiBaseUrl,
    apiKey: env.openaiApiKey ?? "not-needed",
    allowPrefill: env.allowPrefill,
    priceTable: prices,
  });
  const llm = routeModels(client, { fallbacks: env.fallbackModels ?? [], settings, prices });
  const git = createGit(exec);
  const say = (line: string) => {
    if (!opts.json || env.progress) process.stderr.write(`${line}\n`);
  };
  say(`aider-bot: ${model}, ${opts.editFormat ?? "diff"} edits, repo ${root}`);
  let streamed = 0;
  const deps = createCoderDeps({
    root,
    exec,
    git,
    llm,
    commitModel: opts.weakModel ?? env.weakModel ?? model,
    protectedPaths: DEFAULT_PROTECTED_PATHS,
    // One folder per checkout under AIDER_BOT_CACHE_DIR too: repositories sharing one cache file would evict each other.
    cacheDir: defaultCacheDir(root, env.source),
    onProgress: (p) => {
      if (p.stage === "thinking" && p.delta) {
        streamed += p.delta.length;
        return;
      }
      say(`  [round ${p.round}] ${p.stage}${p.detail ? `: ${p.detail}` : ""}`);
    },
  });
  // `--read` files must exist: a typo would otherwise leave the model without the file, silently.
  const reader = createConfinedReader(root);
  for (const p of opts.read) {
    const got = reader.read(p);
    if (!got.ok)
      throw new UsageError(`--read ${p}: ${got.reason === "missing" ? "no such file in the checkout" : got.message}`);
  }
  // The repository's own instruction files, from this checkout (issue #32).
  const instructions =
    opts.instructions === false
      ? undefined
      : await loadInstructions(
          checkoutInstructions(root, () => deps.workspace.listFiles()),
          { auto: true, read: [], maxTokens: CLI_INSTRUCTIONS_TOKENS, from: "the checkout" },
        );
  if (instructions?.files.length) say(`  instructions: ${instructions.files.map((f) => f.path).join(", ")}`);
  for (const note of instructions?.notes ?? []) say(`  instructions: ${note}`);
  const result: CoderResult = await runCoder(
    {
      message: opts.message,
      files: opts.file,
      readFiles: opts.read,
      ...(instructions ? { instructions } : {}),
      editFormat: opts.editFormat ?? "diff",
      model,
      weakModel: opts.weakModel ?? env.weakModel,
      lintCommands: opts.lintCmd,
      testCommand: opts.testCmd,
      autoTest: opts.autoTest,
      maxReflections: opts.maxReflections,
      mapTokens: opts.mapTokens,
      commit: opts.commit,
      trailers: [`Co-authored-by: aider-bot (${model}) <aider-bot@users.noreply.github.com>`],
      protectedPaths: [...DEFAULT_PROTECTED_PATHS],
      budget: {},
      commandTimeoutMs: 10 * 60_000,
    },
    deps,
  );
  void streamed;
  if (opts.json) {
    process.stdout.write(
      `${JSON.stringify({
        outcome: result.outcome,
        editedFiles: "editedFiles" in result ? result.editedFiles : [],
        commit: result.outcome === "changed" ? result.commit : null,
        reflections: result.reflections,
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
      })}\n`,
    );
  } else {
    process.stdout.write(renderCliSummary(result));
  }
  return result.outcome === "changed" || result.outcome === "no-changes" ? 0 : 1;
}
