import { EDIT_FORMAT_NAMES, type EditFormatName } from "../edits/types.js";
import { readRunEnv, sourceEnv, type RunEnv } from "./env.js";

/** The events `aider-bot action` handles (the App's events, plus the two only a workflow has). */
export const ACTION_EVENTS = [
  "issue_comment",
  "pull_request_review_comment",
  "issues",
  "workflow_dispatch",
  "schedule",
] as const;
export type ActionEventName = (typeof ACTION_EVENTS)[number];

/** What a GitHub Actions runner hands `aider-bot action`: the `GITHUB_*` variables and the action's inputs. */
export interface ActionEnv {
  eventName: ActionEventName;
  eventPath: string;
  owner: string;
  repo: string;
  apiUrl: string;
  serverUrl: string;
  workspace: string;
  outputPath?: string;
  summaryPath?: string;
  /** `<run id>.<attempt>`: names this run's status comment, so a re-run of the workflow starts a new one. */
  runKey: string;
  /** Where job clones and caches go (the runner's temp dir, wiped after the job). */
  tempDir?: string;
  logLevel: string;
  /**
   * Octokit's pacing of writes (one mutating request a second, as GitHub asks of integrations). `AIDER_BOT_THROTTLE=0`
   * turns it off, as for the App: only against a fake GitHub (tests), never against github.com.
   */
  throttle: boolean;
  inputs: {
    openaiBaseUrl: string;
    openaiApiKey?: string;
    model: string;
    weakModel?: string;
    editFormat?: EditFormatName;
    trigger?: string;
    label?: string;
    configPath: string;
    githubToken: string;
    message?: string;
    botLogin: string;
  };
  /**
   * Extra variables for the repository's setup/lint/test commands: the toolchain locations setup actions export
   * (JAVA_HOME, GOROOT, pythonLocation, …) and the variables named in the `pass-env` input (say, DATABASE_URL of a
   * service container). Nothing else of the runner's environment reaches them.
   */
  checkEnv: Record<string, string>;
  /**
   * The run's settings from the environment, as the App reads them (`AIDER_BOT_MAP_THREADS`, `AIDER_BOT_FALLBACK_MODELS`,
   * `AIDER_BOT_PRICES`, …, set with the workflow step's `env:`), the models from the action's inputs.
   */
  runEnv: RunEnv;
  /** The raw environment, for the exec allow-list only (inputs and tokens are not on it). */
  source: Readonly<Record<string, string | undefined>>;
}

/** What setup actions (setup-java, setup-go, setup-python, setup-dotnet, rust toolchains, ruby) export besides PATH. */
const TOOLCHAIN =
  /^(JAVA_HOME(_\w+)?|GOROOT|GOPATH|GOBIN|GOFLAGS|pythonLocation|Python[23]?_ROOT_DIR|PKG_CONFIG_PATH|LD_LIBRARY_PATH|CARGO_HOME|RUSTUP_HOME|RUSTUP_TOOLCHAIN|DOTNET_ROOT|GEM_HOME|GEM_PATH|BUNDLE_GEMFILE|RUNNER_OS|RUNNER_ARCH|RUNNER_TOOL_CACHE)$/;
/** Names that look like credentials never pass, whatever the pattern or the input says. */
const SECRET_NAME = /TOKEN|SECRET|PASSWORD|PASSWD|PRIVATE|CREDENTIAL|API_?KEY|AUTH/i;

function checkEnvOf(
  source: Readonly<Record<string, string | undefined>>,
  passEnv: string | undefined,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value !== undefined && TOOLCHAIN.test(name) && !SECRET_NAME.test(name)) env[name] = value;
  }
  for (const name of (passEnv ?? "").split(/[\s,]+/).filter(Boolean)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new ActionSetupError(
        `The \`pass-env\` input lists variable names separated by commas or new lines; "${name}" is not one.`,
      );
    if (/^(INPUT_|GITHUB_TOKEN$|ACTIONS_)/.test(name)) {
      throw new ActionSetupError(
        `The \`pass-env\` input cannot pass ${name}: it holds the action's inputs or the runner's tokens, which the repository's commands must never see.`,
      );
    }
    const value = source[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/** A problem with the workflow or the action's inputs: the action fails with `::error::` and this message. */
export class ActionSetupError extends Error {
  override name = "ActionSetupError";
}

/**
 * An input as the runner passes it: `INPUT_<NAME>` upper-cased with spaces as `_` (hyphens kept, as JavaScript
 * actions receive them); the composite action.yml passes the same names with `_` for `-`, so both spellings count.
 * Empty means unset (an unset `with:` key and a missing secret both arrive as "").
 */
function input(source: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const upper = name.replace(/ /g, "_").toUpperCase();
  const value = source[`INPUT_${upper}`] ?? source[`INPUT_${upper.replace(/-/g, "_")}`];
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function required(source: Readonly<Record<string, string | undefined>>, name: string, what: string): string {
  const value = source[name];
  if (!value)
    throw new ActionSetupError(
      `${name} is not set: ${what}. Run \`aider-bot action\` as a step of a GitHub Actions workflow (uses: <owner>/aider-bot@v1).`,
    );
  return value;
}

function httpUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // The value is not echoed: a URL may carry credentials.
    throw new ActionSetupError(`${name} must be an http(s) URL; the value given is not a valid URL.`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new ActionSetupError(`${name} must be an http(s) URL; only http and https are supported.`);
  return value.replace(/\/+$/, "");
}

/**
 * Read and validate the runner's environment for `aider-bot action`; throws {@link ActionSetupError} naming the
 * variable or input to fix. `readActionEnv({ GITHUB_EVENT_NAME: "issue_comment", … })`
 */
export function readActionEnv(source: Readonly<Record<string, string | undefined>> = sourceEnv()): ActionEnv {
  const eventName = required(source, "GITHUB_EVENT_NAME", "the runner sets it to the event that started the workflow");
  if (!(ACTION_EVENTS as readonly string[]).includes(eventName)) {
    throw new ActionSetupError(
      `The workflow was started by \`${eventName}\`, which aider-bot does not handle. Trigger it on: ${ACTION_EVENTS.join(", ")}.`,
    );
  }
  const repository = required(source, "GITHUB_REPOSITORY", "the runner sets it to owner/name");
  const [owner, repo, extra] = repository.split("/");
  if (!owner || !repo || extra !== undefined)
    throw new ActionSetupError(`GITHUB_REPOSITORY must be owner/name, got "${repository}".`);
  const githubToken = input(source, "github-token");
  if (!githubToken) {
    throw new ActionSetupError(
      "The `github-token` input is empty: leave it unset to use the workflow's GITHUB_TOKEN (default `${{ github.token }}`), or pass an App token from actions/create-github-app-token.",
    );
  }
  const openaiBaseUrl = httpUrl(
    "The `openai-base-url` input",
    input(source, "openai-base-url") ?? "https://api.openai.com/v1",
  );
  const openaiApiKey = input(source, "openai-api-key");
  const model = input(source, "model") ?? "gpt-4o";
  if (!openaiApiKey && new URL(openaiBaseUrl).hostname === "api.openai.com" && !NATIVE_MODEL.test(model)) {
    throw new ActionSetupError(
      "The `openai-api-key` input is empty: pass it from a secret (`openai-api-key: ${{ secrets.OPENAI_API_KEY }}`). Secrets are not given to workflows started from forks.",
    );
  }
  const editFormat = input(source, "edit-format");
  if (editFormat !== undefined && !(EDIT_FORMAT_NAMES as readonly string[]).includes(editFormat)) {
    throw new ActionSetupError(
      `The \`edit-format\` input must be one of ${EDIT_FORMAT_NAMES.join(", ")}, got "${editFormat}".`,
    );
  }
  const trigger = input(source, "trigger");
  if (trigger !== undefined && !/^[A-Za-z][\w-]*$/.test(trigger)) {
    throw new ActionSetupError(
      `The \`trigger\` input must be a single command word like "aider" (used as /aider), got "${trigger}".`,
    );
  }
  const configPath = input(source, "config-path") ?? ".github/aider.yml";
  if (configPath.startsWith("/") || configPath.split("/").includes("..")) {
    throw new ActionSetupError(
      `The \`config-path\` input must be a path inside the repository like .github/aider.yml, got "${configPath}".`,
    );
  }
  const logLevel = source.RUNNER_DEBUG === "1" ? "debug" : (source.LOG_LEVEL ?? "info");
  const weakModel = input(source, "weak-model");
  const label = input(source, "label");
  const message = input(source, "message");
  const checkEnv = checkEnvOf(source, input(source, "pass-env"));
  return {
    eventName: eventName as ActionEventName,
    eventPath: required(source, "GITHUB_EVENT_PATH", "the runner writes the event's payload to that file"),
    owner,
    repo,
    apiUrl: httpUrl("GITHUB_API_URL", source.GITHUB_API_URL ?? "https://api.github.com"),
    serverUrl: httpUrl("GITHUB_SERVER_URL", source.GITHUB_SERVER_URL ?? "https://github.com"),
    workspace: required(source, "GITHUB_WORKSPACE", "the runner sets it to the job's checkout folder"),
    ...(source.GITHUB_OUTPUT ? { outputPath: source.GITHUB_OUTPUT } : {}),
    ...(source.GITHUB_STEP_SUMMARY ? { summaryPath: source.GITHUB_STEP_SUMMARY } : {}),
    runKey: `${source.GITHUB_RUN_ID ?? "local"}.${source.GITHUB_RUN_ATTEMPT ?? "1"}`,
    ...(source.RUNNER_TEMP ? { tempDir: source.RUNNER_TEMP } : {}),
    logLevel,
    throttle: source.AIDER_BOT_THROTTLE !== "0",
    inputs: {
      openaiBaseUrl,
      ...(openaiApiKey ? { openaiApiKey } : {}),
      model,
      ...(weakModel ? { weakModel } : {}),
      ...(editFormat ? { editFormat: editFormat as EditFormatName } : {}),
      ...(trigger ? { trigger } : {}),
      ...(label ? { label } : {}),
      configPath,
      githubToken,
      ...(message ? { message } : {}),
      botLogin: input(source, "bot-login") ?? "github-actions[bot]",
    },
    checkEnv,
    runEnv: { ...runEnvOf(withProviderInputs(source)), model, ...(weakModel ? { weakModel } : {}) },
    source,
  };
}

/** {@link readRunEnv} with its problems reported as the action's setup errors. */
/** A model of a native provider (llm/provider-of.ts), which needs no OpenAI key. */
const NATIVE_MODEL = /^(anthropic|bedrock|vertex|azure)\//;

/**
 * The providers' inputs as the variables the run reads (an input wins over the runner's variable of that name), so
 * a workflow may pass them either way: `anthropic-api-key: ${{ secrets.… }}`, or the env that
 * aws-actions/configure-aws-credentials (AWS_REGION and the OIDC role's keys) and google-github-actions/auth
 * (GOOGLE_APPLICATION_CREDENTIALS) set for the job.
 */
function withProviderInputs(source: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  const from: Record<string, string> = {
    ANTHROPIC_API_KEY: "anthropic-api-key",
    AZURE_OPENAI_API_KEY: "azure-openai-api-key",
    AZURE_OPENAI_ENDPOINT: "azure-openai-endpoint",
    OPENAI_API_VERSION: "openai-api-version",
    AWS_REGION: "aws-region",
    CLOUD_ML_REGION: "vertex-region",
    ANTHROPIC_VERTEX_PROJECT_ID: "vertex-project-id",
  };
  const out: Record<string, string | undefined> = { ...source };
  for (const [variable, name] of Object.entries(from)) out[variable] = input(source, name) ?? source[variable];
  return out;
}

function runEnvOf(source: Readonly<Record<string, string | undefined>>): RunEnv {
  try {
    return readRunEnv(source);
  } catch (error) {
    throw new ActionSetupError(error instanceof Error ? error.message : String(error));
  }
}
