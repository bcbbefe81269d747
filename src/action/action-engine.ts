/**
 * The Action's ONE adapter over the App's engine: the intake (decide, authorize, reply, 👀 and the "queued" status
 * comment — `triageEvent`, `fireSchedule`) and the run (`runJob` over ports). The Action runs one request in the
 * foreground instead of queueing it, so a capturing queue takes the place of the App's. When the App's intake or
 * run seams move, only this file changes.
 */
import path from "node:path";
import type { Logger } from "pino";
import { fireSchedule } from "../triage/fire-schedule.js";
import { scheduleKey, type Schedule, type ScheduleTarget } from "../triage/schedule-key.js";
import { authorizeSender, permissionNeeded } from "../triage/decide-command.js";
import { sanitiseCommand } from "../context/sanitise-command.js";
import { prRunSpec } from "../context/pr-run-spec.js";
import { loadRepoConfig } from "../config/load-repo-config.js";
import type { RepoConfig } from "../config/repo-config.js";
import type { Exec } from "../exec/types.js";
import { composeRun } from "../compose/compose-run.js";
import { createRunGitHub } from "../compose/create-run-github.js";
import type { DriverSettings } from "../compose/run-settings.js";
import { renderStage } from "../report/render-status.js";
import type { GitHubClient } from "../github/github-client.js";
import { RepoGitHub } from "../github/repo-github.js";
import type { RunJobData, RunJobInput, RunQueue } from "../run/run-job-data.js";
import { triageEvent } from "../triage/triage-event.js";
import type { BotEvent } from "../edge/bot-event.js";
import { renderConfigProblems } from "../report/render-config-problems.js";
import type { LlmClient } from "../llm/types.js";
import type { SecretRedactor } from "../security/redact-secrets.js";
import { resolveSettings } from "../run/prepare/resolve-settings.js";
import { runJob } from "../run/run-job.js";
import type { RunOutcome } from "../run/run-outcome.js";
import type { RunGitHub } from "../run/run-ports.js";
import type { RunRequest } from "../run/run-request.js";
import { createGit } from "../workspace/create-git.js";
import { createInPlaceGit } from "./in-place-git.js";

export interface EngineDeps {
  api: GitHubClient;
  /** The workflow's token (or an App token): API, git push, never logged. */
  token: string;
  bot: { login: string; email: string };
  /** Model defaults when the repository's config names none (the action's inputs). */
  defaults: { model: string; weakModel?: string };
  /** The repository config as parsed YAML (null: no file), input defaults merged in. */
  loadConfig(): Promise<unknown>;
  logger: Logger;
}

export interface RunDeps extends EngineDeps {
  /** The run's settings from the runner's environment (compose/run-settings: `driverSettings(…, "action")`). */
  settings: DriverSettings;
  exec: Exec;
  llm: LlmClient;
  /** The step's redactor (compose-clients): commit messages and the run's transcript go through it. */
  redactor: SecretRedactor;
  /** GITHUB_WORKSPACE: used in place when it is the branch the run changes. */
  workspace: string;
  /** Where clones and caches go (RUNNER_TEMP). */
  tempRoot: string;
  /** GITHUB_SERVER_URL, for commit links. */
  webUrl: string;
  /** Variables the repository's own commands get on top of the allow-list (toolchain, `pass-env`). */
  checkEnv: Record<string, string>;
  signal: AbortSignal;
}

/** What the intake decided: a request to run now, or why nothing runs (the reply, if any, is already posted). */
export type Intake =
  /** `feedback`: where the run's status comment, reactions and Check Run go; null for a run with no thread. */
  | { kind: "run"; request: RunRequest; feedback: Feedback | null }
  | { kind: "done"; outcome: "ignored" | "replied" | "unauthorized" | "cancelled" | "refused"; reason: string };

/** Where a run's feedback goes on GitHub: the App's job context without the request. */
export type Feedback = Omit<RunJobData, "req">;

/** A queue that runs nothing: it keeps what the App's intake would have queued, for the Action to run in the foreground. */
function captureQueue(): RunQueue & { taken: RunJobInput[] } {
  const taken: RunJobInput[] = [];
  return {
    taken,
    // One workflow run handles one event: nothing was queued before it (the workflow's concurrency group serialises).
    enqueue: async (job) => (taken.push(job), true),
    // Another workflow run cannot be stopped from here; the reply says there is nothing to cancel in this run.
    cancel: async () => ({ dropped: 0, aborted: 0 }),
  };
}

function captured(job: RunJobInput): Intake {
  const { req, ...feedback } = job.data;
  return { kind: "run", request: req, feedback };
}

/** `issue_comment`, `pull_request_review_comment`, `issues` (typed by the edge): exactly the App's triage. */
export async function intakeEvent(event: BotEvent, deps: EngineDeps): Promise<Intake> {
  const queue = captureQueue();
  const result = await triageEvent(
    event,
    { api: deps.api, loadConfig: deps.loadConfig, log: deps.logger },
    { runs: queue, botLogin: async () => deps.bot.login, defaults: deps.defaults },
  );
  const job = queue.taken[0];
  if (result.kind === "enqueued" && job) return captured(job);
  if (result.kind === "replied")
    return {
      kind: "done",
      outcome: result.reason === "unauthorized" ? "unauthorized" : "replied",
      reason: result.reason,
    };
  if (result.kind === "cancelled") return { kind: "done", outcome: "cancelled", reason: `cancelled ${result.count}` };
  return { kind: "done", outcome: "ignored", reason: result.kind === "ignored" ? result.reason : "nothing to run" };
}

/** `schedule`: the config's `schedules` whose `cron` is the one that fired, each through the App's schedule intake. */
export async function intakeSchedule(
  args: { cron: string; owner: string; repo: string; cloneUrl: string; defaultBranch: string; now: Date },
  deps: EngineDeps,
): Promise<Intake[]> {
  const config = await loadRepoConfig(deps.loadConfig);
  if (!config.ok) return [{ kind: "done", outcome: "refused", reason: renderConfigProblems(config.problems) }];
  const target: ScheduleTarget = {
    installationId: 0,
    owner: args.owner,
    repo: args.repo,
    cloneUrl: args.cloneUrl,
    defaultBranch: args.defaultBranch,
    config: config.config,
  };
  const due = config.config.schedules
    .map((s, i) => [s, i] as [Schedule, number])
    .filter(([s]) => s.cron.trim() === args.cron.trim());
  if (due.length === 0)
    return [
      { kind: "done", outcome: "ignored", reason: `no entry of \`schedules\` in the config has cron "${args.cron}"` },
    ];
  const out: Intake[] = [];
  for (const [schedule, index] of due) {
    const queue = captureQueue();
    const key = scheduleKey(target, index, schedule);
    const started = await fireSchedule({
      api: deps.api,
      target,
      schedule,
      key,
      botLogin: deps.bot.login,
      runs: queue,
      defaults: deps.defaults,
      now: args.now,
    });
    const job = queue.taken[0];
    out.push(
      started && job
        ? captured(job)
        : { kind: "done", outcome: "ignored", reason: `schedule ${key} already ran at this time` },
    );
  }
  return out;
}

/**
 * `workflow_dispatch` with a message: on the open pull request of the ref's branch (its status comment goes there),
 * else straight onto the branch — but never onto the default branch without a pull request. The dispatcher passes
 * the same permission gate as a commenter.
 */
export async function intakeDispatch(
  args: {
    message: string;
    branch: string;
    owner: string;
    repo: string;
    cloneUrl: string;
    defaultBranch: string;
    sender: { login: string; id?: number; type: string };
    jobId: string;
  },
  deps: EngineDeps,
): Promise<Intake> {
  const { owner, repo } = args;
  // The dispatch's repository, bound once: every read and write below is on it.
  const github = RepoGitHub.create({ octokit: deps.api, owner, repo });
  const config = await loadRepoConfig(deps.loadConfig);
  if (!config.ok) return { kind: "done", outcome: "refused", reason: renderConfigProblems(config.problems) };
  const trigger: RepoConfig["trigger"] = config.config.trigger;
  // The App's gate: the same "is a permission needed" and the same decision as a `/aider` comment's.
  const bot = { login: deps.bot.login };
  const permission = permissionNeeded({ sender: args.sender }, bot)
    ? await github.permissionOf(args.sender.login)
    : null;
  const auth = authorizeSender({ sender: args.sender, verb: "run", permission, bot, config: config.config });
  if (!auth.allow)
    return { kind: "done", outcome: auth.reason === "permission" ? "unauthorized" : "ignored", reason: auth.message };
  // The dispatcher's message is GitHub text like a comment's: cleaned of hidden parts the same way.
  const message = sanitiseCommand({ verb: "run", text: args.message, flags: { files: [] } }).text;
  const resolved = resolveSettings(config.config, { files: [] }, deps.defaults);
  if (!resolved.ok) return { kind: "done", outcome: "refused", reason: resolved.message };
  const listed = await github.listOpenPullRequestsForBranch(args.branch);
  const pr = listed.find(
    (p) =>
      p.headRef === args.branch &&
      (p.headFullName ?? `${owner}/${repo}`).toLowerCase() === `${owner}/${repo}`.toLowerCase(),
  );
  if (!pr && args.branch === args.defaultBranch) {
    return {
      kind: "done",
      outcome: "refused",
      reason: `No open pull request from \`${args.branch}\`, the default branch: aider-bot never pushes to the default branch directly. Run the workflow on a feature branch (its pull request gets the status comment), or open an issue and label it.`,
    };
  }
  const headSha = pr ? pr.headSha : await github.getCommitSha(args.branch);
  const head = { headRef: args.branch, headSha, headCloneUrl: args.cloneUrl, isFork: false };
  const request: RunRequest = {
    jobId: args.jobId,
    deliveryId: args.jobId,
    owner,
    repo,
    installationId: 0,
    cloneUrl: args.cloneUrl,
    defaultBranch: args.defaultBranch,
    // Without a pull request the run's target is the branch itself: no thread, no number.
    target: pr
      ? {
          kind: "pull-request",
          number: pr.number,
          ...head,
          ...(pr.headFullName ? { headRepoFullName: pr.headFullName } : {}),
        }
      : { kind: "branch", ...head },
    verb: "run",
    message,
    untrustedContext: [],
    files: [],
    requester: {
      login: args.sender.login,
      ...(args.sender.id ? { id: args.sender.id } : {}),
      ...(args.sender.type === "Bot" ? { isBot: true } : {}),
    },
    settings: resolved.value,
    // A run on a pull request reads its context (diff, conversation, review threads) as the App's runs do.
    ...(pr ? { context: prRunSpec(config.config, { kind: "plain" }) } : {}),
  };
  if (!pr) return { kind: "run", request, feedback: null };
  const statusCommentId = await github.ensureStatusComment({
    issueNumber: pr.number,
    jobId: request.jobId,
    botLogin: deps.bot.login,
    body: renderStage("queued", request),
  });
  return {
    kind: "run",
    request,
    feedback: { statusCommentId, reactTo: { kind: "issue", number: pr.number }, webUrl: "", command: trigger.command },
  };
}

/**
 * Run one request to the end with the App's `runJob`: on the workflow's checkout when it fits, lint/test straight
 * on the runner (the runner is the throwaway sandbox), pushing with the token. Returns the outcome and the final
 * status text (also for runs that have no status comment).
 */
export async function runRequest(
  request: RunRequest,
  feedback: Feedback | null,
  deps: RunDeps,
): Promise<{ outcome: RunOutcome; finalBody: string }> {
  const req = withoutForkCommands(request);
  if (req !== request)
    deps.logger.info("pull request from a fork: its setup/lint/test commands are not run on the runner");
  const git = createGit(deps.exec, { name: deps.bot.login, email: deps.bot.email }, { redact: deps.redactor.redact });
  const { runGit, resolve } = createInPlaceGit(git, { workspace: deps.workspace, logger: deps.logger });
  let finalBody = "";
  const outcome = await runJob(
    req,
    composeRun({
      req,
      // Commands not named in the config are found on the DEFAULT branch; never for a fork.
      settings: req === request ? deps.settings : { ...deps.settings, checkPlan: "configured-only" },
      api: deps.api,
      llm: deps.llm,
      exec: deps.exec,
      // No bubblewrap: the runner is a throwaway machine, and the workflow's toolchain must be reachable.
      checkExec: { run: (r) => deps.exec.run({ ...r, env: { ...deps.checkEnv, ...r.env } }) },
      git,
      runGit,
      github: runGitHub(req, feedback, deps),
      botLogin: deps.bot.login,
      cacheRoot: path.join(deps.tempRoot, "aider-bot-cache"),
      workRoot: deps.tempRoot,
      // The same PR/issue context as the App's runs (a dispatch run on a branch without a pull request has none).
      webOrigin: feedback ? deps.webUrl : null,
      command: feedback?.command ?? "aider",
      logger: deps.logger,
      signal: deps.signal,
      redactor: deps.redactor,
      coderRoot: resolve,
      finalText: (body) => (finalBody = body),
    }),
  );
  return { outcome, finalBody };
}

/**
 * A fork's branch is someone else's code. On the runner its commands would run as the same user as this step,
 * which can read the step's environment (the token, the model key): so its setup, lint and test commands are not
 * run at all — the change is still made, syntax-checked and handed over as a patch (the App's fork rule).
 */
export function withoutForkCommands(req: RunRequest): RunRequest {
  if (req.target.kind === "issue" || !req.target.isFork) return req;
  return {
    ...req,
    settings: { ...req.settings, setup: [], lint: [], test: undefined, tests: [], checks: "off", autoTest: false },
  };
}

/** The App's GitHub port; a run with no thread (dispatch on a branch without a PR) has no status comment or reaction. */
function runGitHub(req: RunRequest, feedback: Feedback | null, deps: RunDeps): RunGitHub {
  const webUrl = feedback?.webUrl || `${deps.webUrl}/${req.owner}/${req.repo}`;
  const job = feedback ? { req, ...feedback, webUrl } : { req, webUrl };
  return createRunGitHub(deps.api, job, async () => deps.token, deps.logger, deps.bot.login);
}
