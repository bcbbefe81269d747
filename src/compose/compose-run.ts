import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import type { Logger } from "pino";
import { checkCommandsOf } from "../coder/check-commands.js";
import type { CoderOptions } from "../coder/types.js";
import { pullRequestBase } from "../run/prepare/base-commit.js";
import { startBaseline, type BaselineRun } from "../run/prepare/baseline-run.js";
import type { Exec } from "../exec/types.js";
import type { GitHubClient } from "../github/github-client.js";
import { RepoGitHub } from "../github/repo-github.js";
import { renderPlanOutcome } from "../report/render-plan.js";
import { renderFinal, renderStage } from "../report/render-status.js";
import { countTokens } from "../llm/count-tokens.js";
import type { LlmClient } from "../llm/types.js";
import type { TranscriptStore } from "../run/report/publish-transcript.js";
import type { CheckPlan } from "../checks/discover/types.js";
import { resolveChecks, type ResolvedChecks } from "../run/prepare/resolve-checks.js";
import type { RunJobDeps } from "../run/run-job-deps.js";
import type { RunCoderPort, RunGit, RunGitHub } from "../run/run-ports.js";
import type { RunRequest } from "../run/run-request.js";
import type { SecretRedactor } from "../security/redact-secrets.js";
import type { Git } from "../workspace/create-git.js";
import { createCheckoutCoder } from "./checkout-coder.js";
import { warmGrammarWhileCloning } from "./create-coder-deps.js";
import { createContextHooks } from "./create-context-hooks.js";
import type { DriverSettings } from "./run-settings.js";

/** What a driver hands the composition root for one run: its settings, its checkout and its ports. */
export interface ComposeRunInput {
  req: RunRequest;
  settings: DriverSettings;
  /** The GitHub client of the run's repository (comments, pull requests, the default branch's files). */
  api: GitHubClient;
  llm: LlmClient;
  exec: Exec;
  /** Exec for the repository's own commands (the App's sandbox, the runner's toolchain environment). */
  checkExec: Exec;
  /** The run's git (its commit identity), for the coder's commits and diffs. */
  git: Git;
  /** The driver's checkout: a fresh clone (App), the workflow's own checkout when it fits (Action). */
  runGit: RunGit;
  github: RunGitHub;
  botLogin: string;
  /** Repo-map caches go under `<cacheRoot>/repomap/<owner>/<repo>`. */
  cacheRoot: string;
  /** Where the run's temporary checkouts are made (created if missing). */
  workRoot: string;
  /** The web origin of page links in the PR context; null: the run has no thread to read (no context hooks). */
  webOrigin: string | null;
  /** The repository's command word (`/aider`), for the plan comment. */
  command: string;
  logger: Logger;
  signal: AbortSignal;
  /** The driver's redactor (compose-clients): the run's transcript goes through it before it is stored or published. */
  redactor: SecretRedactor;
  transcripts?: TranscriptStore;
  /** The folder the coder works in for a checkout `runGit` made (the Action maps it to the workflow's). */
  coderRoot?(checkout: string): string;
  /** Called as the coder starts, with the check plan when it was read (the App's container mode picks its image). */
  beforeCoder?(checkout: string, plan: CheckPlan | null): void | Promise<void>;
  /** The final status text as the driver words it (the Action names the branch of a run without a pull request). */
  finalText?(body: string, req: RunRequest): string;
}

/**
 * The one composition root of a run (the App's job process, the Action and the CLI): everything `runJob` needs, built from the driver's settings and ports. A driver keeps only what is its own
 * (the job process and IPC, the workflow's checkout and event, the local checkout and flags).
 */
export function composeRun(input: ComposeRunInput): RunJobDeps {
  const { req, settings } = input;
  const checkPlan = checkPlanOf(input);
  return {
    github: input.github,
    git: input.runGit,
    warmWhileCloning: warmWhileCloning(input),
    coder: composeCoder(input, checkPlan),
    tempDir: tempDirIn(input.workRoot),
    render: {
      stage: renderStage,
      final: (outcome, r) => (input.finalText ?? ((body) => body))(renderFinal(outcome, r), r),
      plan: (outcome, r) => renderPlanOutcome(outcome, r, input.command),
    },
    redact: input.redactor.redact,
    ...(settings.transcripts && input.transcripts ? { transcripts: input.transcripts } : {}),
    ...(checkPlan ? { checkPlan: checkPlan.read } : {}),
    logger: input.logger,
    now: () => Date.now(),
    signal: input.signal,
    // The PR/issue context before the coder, review-thread replies after it.
    ...(input.webOrigin !== null
      ? createContextHooks({
          req,
          api: input.api,
          llm: input.llm,
          botLogin: input.botLogin,
          webUrl: input.webOrigin,
          count: countTokens,
        })
      : {}),
  };
}

/**
 * What a run starts while its branch is cloned: the grammar of the repository's language, and for a run that runs
 * checks, the check exec's set-up for its first command (see `Exec.prepare`).
 */
export function warmWhileCloning(
  input: Pick<ComposeRunInput, "logger" | "checkExec" | "cacheRoot">,
): (req: Pick<RunRequest, "verb" | "language" | "owner" | "repo">) => void {
  const grammar = warmGrammarWhileCloning(input.logger, (r) => path.join(input.cacheRoot, "repomap", r.owner, r.repo));
  return (req) => {
    void grammar(req);
    if (req.verb === "run") void input.checkExec.prepare?.();
  };
}

/** The check plan, read once: runJob asks for it while cloning, and the coder's start looks at it again. */
interface CheckPlanSource {
  read(r: RunRequest): Promise<ResolvedChecks>;
  /** The plan when it has been asked for (null: never asked, e.g. a run without discovery). */
  current(): Promise<CheckPlan | null>;
}

/** What runs is read from the DEFAULT branch through the API, never from the pull request's head. */
function checkPlanOf(input: ComposeRunInput): CheckPlanSource | null {
  if (input.settings.checkPlan !== "default-branch") return null;
  let planP: Promise<ResolvedChecks> | null = null;
  return {
    read: (r) =>
      (planP ??= resolveChecks(
        r.settings,
        RepoGitHub.create({ octokit: input.api, owner: r.owner, repo: r.repo }).reader(r.defaultBranch),
      )),
    current: async () => (planP ? (await planP).plan : null),
  };
}

/** The run's coder ({@link createCheckoutCoder}) with this driver's execs, caches and base run. */
function composeCoder(input: ComposeRunInput, checkPlan: CheckPlanSource | null): RunCoderPort {
  const { req, settings, beforeCoder } = input;
  return createCheckoutCoder({
    owner: req.owner,
    repo: req.repo,
    llm: input.llm,
    exec: input.exec,
    checkExec: input.checkExec,
    git: input.git,
    cacheRoot: input.cacheRoot,
    gitContentIds: settings.gitContentIds,
    ...(settings.mapThreads !== undefined ? { mapThreads: settings.mapThreads } : {}),
    ...(input.coderRoot ? { coderRoot: input.coderRoot } : {}),
    ...(beforeCoder
      ? { beforeCoder: async (checkout: string) => beforeCoder(checkout, checkPlan ? await checkPlan.current() : null) }
      : {}),
    baseline: (checkout, options, signal) => baselineFor(input, checkout, options, signal),
    // A run that edits runs its checks: their setup starts while the model writes, where that is safe.
    ...(req.verb === "run" ? { earlySetup: earlySetupLog(input.logger) } : {}),
  });
}

/** What the job's log says about the change's early setup (see startEarlySetup). */
function earlySetupLog(log: Logger): NonNullable<Parameters<typeof createCheckoutCoder>[0]["earlySetup"]> {
  return {
    onStart: (spec) => log.info({ command: spec.command, cwd: spec.cwd }, "setup started while the model writes"),
    onSkip: (spec, why) => log.info({ command: spec.command, why }, "setup runs after the edit"),
    onError: (error) => log.warn({ err: error }, "the early setup failed; setup runs after the edit"),
  };
}

/**
 * The base's run of the repository's checks (see startBaseline), for an App run whose commands run in bubblewrap, in
 * a container (the base's in a container of its own, of the same image, that mounts only the base's checkout) or
 * unsandboxed by the operator's choice: null for `baseline: off`, the Action and the CLI (the runner's or the user's
 * own checkout), a fork's pull request (its clone is the fork's, not the repository's), a sandbox that cannot run, and
 * a run with no command to compare. The base is, for a pull request, where its branch left the default branch (see
 * pullRequestBase); for an issue, the checkout before any edit.
 */
export async function baselineFor(
  input: ComposeRunInput,
  checkout: string,
  options: CoderOptions,
  signal: AbortSignal,
): Promise<BaselineRun | null> {
  const { req } = input;
  const target = req.target;
  const sandbox = input.settings.sandbox;
  if (req.settings.baseline === "off" || req.verb !== "run" || sandbox === "runner" || sandbox === "local") return null;
  if (target.kind !== "issue" && target.isFork) return null;
  const specs = checkCommandsOf(options);
  if (!specs.some((s) => s.kind !== "setup")) return null;
  const mode = await input.checkExec.sandboxMode?.();
  if (!mode || (mode !== "bubblewrap" && mode !== "off" && !mode.startsWith("container"))) return null;
  const log = input.logger;
  // Read now, as the coder starts: its first commit must not become the base.
  const head = await input.git.headSha(checkout).catch((error: unknown) => {
    log.warn({ err: error }, "the checkout's commit could not be read; failures are not compared with the base");
    return null;
  });
  if (!head) return null;
  return startBaseline(checkout, specs, options.commandTimeoutMs, {
    baseSha: async (stopped) =>
      target.kind === "issue"
        ? head
        : pullRequestBase(
            input.git,
            {
              dir: checkout,
              head,
              headBranch: target.headRef,
              defaultBranch: req.defaultBranch,
              token: await input.github.installationToken(),
            },
            undefined,
            stopped,
          ),
    // A repository of its own, not a worktree of the run's checkout: its commands can run git (`git diff
    // --exit-code`, version lookups) in a container that mounts only this folder, and nothing in it points back
    // into the run's checkout (no worktree entry is left there when the job ends first).
    checkoutBase: async (sha, dir, stopped) => {
      await input.git.run(checkout, ["init", "--quiet", dir], { signal: stopped });
      await input.git.run(dir, ["fetch", "--quiet", "--no-tags", "--depth", "1", "--", checkout, sha], {
        signal: stopped,
      });
      await input.git.run(dir, ["checkout", "--quiet", "--detach", "FETCH_HEAD"], { signal: stopped });
    },
    // Background work: the run's own checks (what the run waits for) come first on a busy machine.
    checkExecFor: (dir) => input.checkExec.forCheckout?.(dir, { priority: "background" }) ?? input.checkExec,
    cacheDir: path.join(input.cacheRoot, "baseline", req.owner, req.repo),
    signal,
    onError: (error) => log.warn({ err: error }, "the base's checks could not run; failures are not compared"),
  });
}

/** Private temporary folders under `root`, named with this process's id (the App's start-up sweep reads it). */
export function tempDirIn(root: string): RunJobDeps["tempDir"] {
  return {
    // The work dir is created if missing (a fresh volume, a cleaned /tmp): a job must never fail on that.
    create: async (prefix) => {
      await mkdir(root, { recursive: true, mode: 0o700 });
      return mkdtemp(path.join(root, `${prefix}${process.pid}-`));
    },
    remove: (dir) => rm(dir, { recursive: true, force: true }),
  };
}
