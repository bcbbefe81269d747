import os from "node:os";
import path from "node:path";
import type { Logger } from "pino";
import { composeRun } from "../compose/compose-run.js";
import { createRunGitHub } from "../compose/create-run-github.js";
import type { DriverSettings } from "../compose/run-settings.js";
import type { AppEnv } from "../config/env.js";
import type { Exec } from "../exec/types.js";
import type { SecretRedactor } from "../security/redact-secrets.js";
import type { GitHubClient } from "../github/github-client.js";
import type { RunJobData } from "../run/run-job-data.js";
import type { LlmClient } from "../llm/types.js";
import { runJob } from "../run/run-job.js";
import type { RunOutcome } from "../run/run-outcome.js";
import type { RunGit } from "../run/run-ports.js";
import { createGit, type Git } from "../workspace/create-git.js";
import { containerTargetFor, readDefaultBranchDevcontainer, type PlanImageHints } from "./container-target.js";
import { createTranscriptStore, transcriptDir } from "./transcript-store.js";

/** What running one job needs; in a job process, all of it comes from the job's input (no App key, no webhook secret). */
export interface ExecuteRunDeps {
  env: Pick<AppEnv, "workDir" | "cacheDir"> &
    Partial<Pick<AppEnv, "mapThreads" | "gitMirrors" | "sandbox" | "defaultImage" | "toolchainImages" | "source">>;
  /** The run's settings from the environment (compose/run-settings: `driverSettings(env, "app")`). */
  settings: DriverSettings;
  exec: Exec;
  /** Exec for the repository's own commands (sandboxed when available). */
  checkExec: Exec;
  llm: LlmClient;
  /** An installation client for this repository's comments, pull requests and Check Runs. */
  api: GitHubClient;
  /** A token for git over HTTP: this repository's contents only (see `app/mint-repo-token`). */
  gitToken(): Promise<string>;
  /**
   * A client with that contents token, for commits made through GitHub's API (the `api` token has no
   * `contents` permission). Absent: `api`.
   */
  commitsApi?: GitHubClient;
  bot: { login: string; email: string };
  logger: Logger;
  signal: AbortSignal;
  /**
   * The job process's redactor (its composition root's): the run's transcript goes through it before it is stored
   * or published, and so does every commit message.
   */
  redactor: SecretRedactor;
  /**
   * The branch's tip the app fetched into the repository's mirror for this job at triage (see app/mirror-prefetch),
   * asked for once, when the checkout is made; it resolves when that fetch ends (null: it fetched nothing). Absent:
   * none was started, and the checkout fetches for itself.
   */
  mirrorFetched?: () => Promise<string | null>;
  /** Called as the coder starts: the run's first reads (check plan, context) are over (the replay of reads made ahead ends). */
  onCoderStart?: () => void;
}

/** Where jobs clone: AIDER_BOT_WORK_DIR, or the system's temporary directory. */
export function jobsRoot(env: Pick<AppEnv, "workDir">): string {
  return env.workDir ?? os.tmpdir();
}

/** Prefix of every job's checkout directory, followed by the pid of its process: what the start-up sweep removes. */
export const JOB_DIR_PREFIX = "aider-bot-job-";

/** Run one job's {@link RunJobData} with real git, the coder and GitHub writes, as the composition root builds it. */
export async function executeRun(job: RunJobData, deps: ExecuteRunDeps): Promise<RunOutcome> {
  const req = job.req;
  // The run's commit is read as git would make it, against the git configuration of the HOME git runs with.
  const ahead = deps.env.source ? { readsAhead: { home: deps.env.source.HOME } } : {};
  const git = createGit(
    deps.exec,
    { name: deps.bot.login, email: deps.bot.email },
    { redact: deps.redactor.redact, ...ahead },
  );
  const cacheRoot = cacheRootOf(deps.env);
  // Container mode reads the default branch's devcontainer while the branch is cloned (it needs nothing of the
  // checkout), not after: the contents API call was a round trip between the clone and the model's first request.
  let devcontainer: Promise<{ text?: string; note?: string }> | null = null;
  const readDevcontainer = () => (devcontainer ??= readDefaultBranchDevcontainer(req, deps.api));
  const composed = composeRun({
    req,
    settings: deps.settings,
    api: deps.api,
    llm: deps.llm,
    exec: deps.exec,
    checkExec: deps.checkExec,
    git,
    runGit: cloningGit(git, req, mirrorPlace(req, deps, cacheRoot), deps.mirrorFetched),
    github: createRunGitHub(deps.api, job, deps.gitToken, deps.logger, deps.bot.login, deps.commitsApi ?? deps.api),
    botLogin: deps.bot.login,
    cacheRoot,
    workRoot: jobsRoot(deps.env),
    // Page links are built from the web origin of the repository's html_url (github.com, or a GitHub Enterprise host).
    webOrigin: job.webUrl ? new URL(job.webUrl).origin : "https://github.com",
    command: job.command ?? "aider",
    logger: deps.logger,
    signal: deps.signal,
    redactor: deps.redactor,
    transcripts: createTranscriptStore(transcriptDir(cacheRoot)),
    beforeCoder: (checkout, plan) => {
      deps.onCoderStart?.();
      return useContainerFor(
        req,
        checkout,
        deps,
        plan ? { ...(plan.image ? { workflowImage: plan.image.name } : {}), toolchain: plan.toolchain } : {},
        readDevcontainer,
      );
    },
  });
  const { warmWhileCloning } = composed;
  return runJob(req, {
    ...composed,
    warmWhileCloning: (r) => {
      warmWhileCloning?.(r);
      if (usesContainer(deps)) void readDevcontainer();
    },
  });
}

/** The App's checkout: a fresh clone per job (from the repository's mirror when it can be). */
function cloningGit(
  git: Git,
  req: RunJobData["req"],
  mirror: ReturnType<typeof mirrorPlace>,
  fetched?: () => Promise<string | null>,
): RunGit {
  return {
    // Only `undo` looks back (for the bot's last commit); every other run needs the branch's tip alone.
    clone: (r) =>
      git.clone({
        ...r,
        depth: req.verb === "undo" ? 50 : 1,
        ...(mirror ? { mirror, ...(fetched ? { fetched: fetched() } : {}) } : {}),
      }),
    headSha: (dir) => git.headSha(dir),
    createBranch: (dir, branch) => git.createBranch(dir, branch),
    push: (r) => git.push(r),
    // A run whose checks failed commits here: through prepareCommit, three git processes where `commit` took seven.
    commitPaths: async (r) => {
      const prepared = await git.prepareCommit(r.dir, r.paths);
      return (await prepared.commit({ subject: r.subject, body: r.body, trailers: r.trailers })).sha;
    },
    recentCommits: (dir, n) => git.recentCommits(dir, n),
    revert: (r) => git.revert(r.dir, r.sha, r.trailers),
    formatPatch: (dir, base) => git.formatPatch(dir, base),
    readCommit: (dir, sha) => git.readCommit(dir, sha),
    // The job's checkout is removed when the run ends: its files may go as soon as GitHub's API has the commit's.
    clearWorkTree: (dir) => git.clearWorkTree(dir),
    restoreWorkTree: (dir) => git.restoreWorkTree(dir),
  };
}

/**
 * Container mode: tell the check exec the checkout and the image its commands use (the container starts now, while
 * the model works). A pull request's run reads the default branch's devcontainer (one contents API call, started
 * while the branch is cloned). Other modes have no `useContainer`.
 */
async function useContainerFor(
  req: RunJobData["req"],
  checkout: string,
  deps: ExecuteRunDeps,
  planHints: PlanImageHints,
  readDevcontainer: () => Promise<{ text?: string; note?: string }>,
): Promise<void> {
  if (!deps.checkExec.useContainer || deps.env.defaultImage === undefined) return;
  const devcontainer = await readDevcontainer();
  if (devcontainer.note) deps.logger.info({ note: devcontainer.note }, "devcontainer not read");
  const hints = { ...planHints, ...(devcontainer.text !== undefined ? { devcontainerJson: devcontainer.text } : {}) };
  // The workflow job's `container:` and the discovered toolchain (the check plan's) come after the repo config and
  // the devcontainer in the image order.
  const target = containerTargetFor(
    req,
    checkout,
    { defaultImage: deps.env.defaultImage, toolchainImages: deps.env.toolchainImages ?? {} },
    hints,
  );
  if (target.notes.length) deps.logger.info({ notes: target.notes }, "container image sources passed over");
  deps.checkExec.useContainer(target);
}

/** Whether the run's commands run in a container, whose image the devcontainer may name. */
function usesContainer(deps: ExecuteRunDeps): boolean {
  return !!deps.checkExec.useContainer && deps.env.defaultImage !== undefined;
}

/** Where the app's caches live: AIDER_BOT_CACHE_DIR, or a folder in the system's temporary directory. */
export function cacheRootOf(env: Pick<AppEnv, "cacheDir">): string {
  return env.cacheDir ?? path.join(os.tmpdir(), "aider-bot-cache");
}

/**
 * The repository's git mirror for this run's checkout (see `cloneFromMirror`), or null for a plain clone: mirrors
 * off, an `undo` (it clones 50 commits deep), a fork's branch (another repository, cloned as it is), or repository
 * commands running unsandboxed (they could write into the mirror later runs start from).
 */
export function mirrorPlace(req: RunJobData["req"], deps: Pick<ExecuteRunDeps, "env" | "logger">, cacheRoot: string) {
  if (deps.env.gitMirrors === false || deps.env.sandbox === "off" || req.verb === "undo") return null;
  if (req.target.kind !== "issue" && req.target.isFork) return null;
  return {
    root: path.join(cacheRoot, "git-mirrors"),
    scope: String(req.installationId),
    onFallback: (reason: string) => deps.logger.info({ reason }, "cloned without the repository's mirror"),
  };
}
