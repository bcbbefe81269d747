import type { ActionRepository, BotEvent } from "../edge/bot-event.js";
import { parseActionEvent } from "../edge/parse-action-event.js";
import os from "node:os";
import type { Logger } from "pino";
import { parse as parseYaml } from "yaml";
import { ActionSetupError, type ActionEnv } from "../config/action-env.js";
import { getUserId } from "../github/installations.js";
import { RepoGitHub } from "../github/repo-github.js";
import { isJsonObject } from "../github/json-field.js";
import type { SecretRedactor } from "../security/redact-secrets.js";
import {
  composeClients,
  composeRedactor,
  type DriverClients,
  type ModelEndpoints,
} from "../compose/compose-clients.js";
import { driverSettings, runDefaults } from "../compose/run-settings.js";
import {
  intakeDispatch,
  intakeEvent,
  intakeSchedule,
  runRequest,
  type EngineDeps,
  type Intake,
} from "./action-engine.js";
import type { ActionResult, ActionRun } from "./action-outputs.js";

/**
 * The commit identity of the token's bot: GitHub's `<id>+<login>@users.noreply.github.com`, which links the commits
 * to the bot's account. The Actions bot's id is fixed; an App's bot user is looked up by its login.
 */
export async function botIdentity(
  userId: (login: string) => Promise<number | undefined>,
  login: string,
  logger: Logger,
): Promise<{ login: string; email: string }> {
  if (login === "github-actions[bot]") return { login, email: "41898282+github-actions[bot]@users.noreply.github.com" };
  try {
    const id = await userId(login);
    if (typeof id === "number") return { login, email: `${id}+${login}@users.noreply.github.com` };
  } catch (error) {
    // Only the avatar link of the commits depends on it: commit with the id-less noreply address instead.
    logger.warn({ err: error, login }, "could not look up the bot user; commits use an address without its id");
  }
  return { login, email: `${login}@users.noreply.github.com` };
}

/**
 * The action's input defaults under the repository's config: the config file wins where it sets a key (like the
 * App's environment defaults), the inputs fill in edit format and trigger word/label. Anything that is not a
 * mapping is passed on untouched for the validator to report.
 */
export function withInputDefaults(raw: unknown, inputs: ActionEnv["inputs"]): unknown {
  if (raw !== null && raw !== undefined && (typeof raw !== "object" || Array.isArray(raw))) return raw;
  const config: Record<string, unknown> = { ...(isJsonObject(raw) ? raw : {}) };
  if (inputs.editFormat && config.edit_format === undefined) config.edit_format = inputs.editFormat;
  if (
    (inputs.trigger || inputs.label) &&
    (config.trigger === undefined ||
      (typeof config.trigger === "object" && config.trigger !== null && !Array.isArray(config.trigger)))
  ) {
    const trigger: Record<string, unknown> = { ...(isJsonObject(config.trigger) ? config.trigger : {}) };
    if (inputs.trigger && trigger.command === undefined) trigger.command = inputs.trigger;
    if (inputs.label && trigger.label === undefined) trigger.label = inputs.label;
    config.trigger = trigger;
  }
  return config;
}

/** The config file from the default branch (as the App reads it: a branch cannot loosen its own rules); null when absent. */
async function fetchConfig(github: RepoGitHub, path: string): Promise<unknown> {
  const text = await github.readFile(path);
  if (text === null) return null;
  const parsed: unknown = parseYaml(text);
  return parsed;
}

/** The Action's models: its inputs' OpenAI-compatible endpoint and the runner's provider variables. */
function actionModels(env: ActionEnv): ModelEndpoints {
  return {
    endpoint: { baseUrl: env.inputs.openaiBaseUrl, apiKey: env.inputs.openaiApiKey },
    providers: env.runEnv,
  };
}

/**
 * The Action's one redactor (its composition root's): the workflow's token and every model key of the step. The
 * step's logger, its GitHub client's write guard, its model clients, its commits and its transcript all take it.
 */
export function actionRedactor(env: ActionEnv): SecretRedactor {
  return composeRedactor({ secrets: [env.inputs.githubToken], models: actionModels(env) });
}

/**
 * One workflow step of `aider-bot action`: read the event, take it through the App's intake (same replies, gate
 * and status comment), and run what it asks in the foreground. Setup problems throw {@link ActionSetupError};
 * everything else ends as an outcome. `io.redactor` is the step's ({@link actionRedactor}), the one `io.logger`
 * writes through.
 */
export async function runAction(
  env: ActionEnv,
  payload: unknown,
  io: { logger: Logger; redactor: SecretRedactor; signal: AbortSignal; now?: () => Date },
): Promise<ActionResult> {
  // The edge: the event file read once, typed (the App's parser), or refused naming what is wrong.
  const parsed = parseActionEvent(env.eventName, payload, env.runKey);
  if (!parsed.ok) {
    if (parsed.refused)
      throw new ActionSetupError(`The event payload at GITHUB_EVENT_PATH is not a GitHub event: ${parsed.reason}.`);
    return { outcome: "ignored", reason: parsed.reason, runs: [] };
  }
  const event = parsed.event;
  const settings = driverSettings(env.runEnv, "action");
  // The spawn helper, the GitHub client and the model clients, from the composition root, over the step's redactor:
  // nothing secret reaches a comment, Check Run, PR body, commit, model request or log line.
  const clients = composeClients({
    redactor: io.redactor,
    source: env.source,
    models: actionModels(env),
    github: { throttle: env.throttle, log: io.logger },
  });
  const api = actionOctokit(env, clients, io.logger);
  const bot = await botIdentity(async (username) => getUserId(api, username), env.inputs.botLogin, io.logger);
  // The workflow's repository, bound once: the Action works on no other.
  const github = RepoGitHub.create({ octokit: api, owner: env.owner, repo: env.repo });
  const engine: EngineDeps = {
    api,
    token: env.inputs.githubToken,
    bot,
    defaults: runDefaults(env.runEnv),
    loadConfig: async () => withInputDefaults(await fetchConfig(github, env.inputs.configPath), env.inputs),
    logger: io.logger,
  };
  const intakes = await intakeFor(env, event, { engine, github }, io.now?.() ?? new Date());
  const toRun = intakes.filter((i): i is Extract<Intake, { kind: "run" }> => i.kind === "run");
  if (toRun.length === 0) {
    const done = intakes.find((i): i is Extract<Intake, { kind: "done" }> => i.kind === "done");
    return { outcome: done?.outcome ?? "ignored", ...(done ? { reason: done.reason } : {}), runs: [] };
  }
  const runs = await runInForeground(toRun, env, { engine, settings, clients }, io);
  const last = runs.at(-1);
  if (!last) throw new Error(`the action had ${toRun.length} run(s) to make and made none`);
  return { outcome: last.outcome.kind, runs };
}

/** The workflow token's client from the composition root (the App's redacting write guard, Probot's throttle settings). */
function actionOctokit(env: ActionEnv, clients: DriverClients, logger: Logger) {
  // Octokit's own request log goes to ours at debug level: a 404 for a missing config is expected, not an error.
  const log = logger.child({ component: "octokit" });
  return clients.github(env.inputs.githubToken, {
    baseUrl: env.apiUrl,
    userAgent: "aider-bot-action",
    log: {
      debug: (m: string) => log.debug(m),
      info: (m: string) => log.debug(m),
      warn: (m: string) => log.warn(m),
      error: (m: string) => log.debug(m),
    },
  });
}

/** The event through the App's intake: what to run, or why nothing runs. */
async function intakeFor(
  env: ActionEnv,
  event: BotEvent,
  { engine, github }: { engine: EngineDeps; github: RepoGitHub },
  now: Date,
): Promise<Intake[]> {
  switch (event.kind) {
    case "schedule": {
      const repo = await repoInfo(event.repository, github);
      return intakeSchedule({ cron: event.cron, owner: env.owner, repo: env.repo, ...repo, now }, engine);
    }
    case "dispatch":
      return [await intakeDispatch(await dispatchArgs(env, event, github), engine)];
    default:
      return [await intakeEvent(event, engine)];
  }
}

/** The repository's clone URL and default branch: from the event when it names them, else from the API. */
async function repoInfo(
  named: ActionRepository | undefined,
  github: RepoGitHub,
): Promise<{ cloneUrl: string; defaultBranch: string }> {
  return named ?? (await github.getRepository());
}

/** A `workflow_dispatch` event as a request: its message, branch and sender, each checked. */
async function dispatchArgs(
  env: ActionEnv,
  event: Extract<BotEvent, { kind: "dispatch" }>,
  github: RepoGitHub,
): Promise<Parameters<typeof intakeDispatch>[0]> {
  const { owner, repo } = env;
  const message = env.inputs.message ?? event.message;
  if (!message)
    throw new ActionSetupError(
      "A workflow_dispatch run needs a request: give the workflow a `message` input and pass it on with `message: ${{ inputs.message }}`.",
    );
  const { ref, sender } = event;
  if (!ref.startsWith("refs/heads/"))
    throw new ActionSetupError(`A workflow_dispatch run works on a branch; it was started on \`${ref}\`.`);
  const jobId = `dispatch:${owner}/${repo}@${env.runKey}`;
  const branch = ref.slice("refs/heads/".length);
  return { message, branch, owner, repo, ...(await repoInfo(event.repository, github)), sender, jobId };
}

/** Each request run to its end in this step, one after the other, with the composition root's settings and clients. */
async function runInForeground(
  toRun: Extract<Intake, { kind: "run" }>[],
  env: ActionEnv,
  root: { engine: EngineDeps; settings: ReturnType<typeof driverSettings>; clients: DriverClients },
  io: { logger: Logger; signal: AbortSignal },
): Promise<ActionRun[]> {
  const { engine, settings, clients } = root;
  const runs: ActionRun[] = [];
  for (const { request, feedback } of toRun) {
    const llm = await clients.llm({
      settings: settings.llm,
      fallbackModels: request.settings.fallbackModels,
      logger: io.logger,
    });
    const done = await runRequest(request, feedback, {
      ...engine,
      settings,
      exec: clients.exec,
      llm,
      redactor: clients.redactor,
      workspace: env.workspace,
      tempRoot: env.tempDir ?? os.tmpdir(),
      webUrl: env.serverUrl,
      checkEnv: env.checkEnv,
      signal: io.signal,
    });
    runs.push({ request, ...done });
    if (io.signal.aborted) break;
  }
  return runs;
}
