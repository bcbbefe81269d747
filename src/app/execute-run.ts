import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Logger } from "pino";
import { runCoder } from "../coder/run-coder.js";
import type { AppEnv } from "../config/env.js";
import { createContextHooks } from "../compose/create-context-hooks.js";
import type { Exec } from "../exec/types.js";
import { createRunGitHub } from "../compose/create-run-github.js";
import { createGitHubRepoReader } from "../github/github-repo-reader.js";
import type { GitHubClient } from "../github/github-client.js";
import type { JobContext } from "../github/job-context.js";
import { renderFinal, renderStage } from "../github/render-status.js";
import { renderPlanOutcome } from "../github/render-plan.js";
import { countTokens } from "../llm/count-tokens.js";
import type { LlmClient } from "../llm/types.js";
import { createCoderDeps, warmGrammarWhileCloning } from "../compose/create-coder-deps.js";
import { resolveChecks } from "../run/resolve-checks.js";
import { runJob } from "../run/run-job.js";
import type { RunOutcome } from "../run/run-outcome.js";
import type { RunGit } from "../run/run-ports.js";
import { containerTargetFor, type PlanImageHints } from "./container-target.js";
import { createGit } from "../workspace/create-git.js";
import { createTranscriptStore, transcriptDir } from "./transcript-store.js";

/** What running one job needs; in a job process, all of it comes from the job's input (no App key, no webhook secret). */
export interface ExecuteRunDeps {
  env: Pick<AppEnv, "workDir" | "cacheDir" | "mapThreads"> &
    Partial<Pick<AppEnv, "gitMirrors" | "sandbox" | "defaultImage" | "toolchainImages">>;
  exec: Exec;
  /** Exec for the repository's own commands (sandboxed when available). */
  checkExec: Exec;
  llm: LlmClient;
  /** An installation client for this repository's comments, pull requests and Check Runs. */
  api: GitHubClient;
  /** A token for git over HTTP: this repository's contents only (see `app/mint-repo-token`). */
  gitToken(): Promise<string>;
  /**
   * Issue #34: a client with that contents token, for commits made through GitHub's API (the `api` token has no
   * `contents` permission). Absent: `api`.
   */
  commitsApi?: GitHubClient;
  bot: { login: string; email: string };
  logger: Logger;
  signal: AbortSignal;
  /** The redactor of GitHub writes (issue #34: the run's transcript goes through it before it is stored or published). */
  redact?(text: string): string;
}

/** Where jobs clone: AIDER_BOT_WORK_DIR, or the system's temporary directory. */
export function jobsRoot(env: Pick<AppEnv, "workDir">): string {
  return env.workDir ?? os.tmpdir();
}

/** Prefix of every job's checkout directory, followed by the pid of its process: what the start-up sweep removes. */
export const JOB_DIR_PREFIX = "aider-bot-job-";

/** Run one job's {@link JobContext} with real git, the coder and GitHub writes. */
export async function executeRun(job: JobContext, deps: ExecuteRunDeps): Promise<RunOutcome> {
  const req = job.req;
  const git = createGit(deps.exec, { name: deps.bot.login, email: deps.bot.email });
  const github = createRunGitHub(
    deps.api,
    job,
    deps.gitToken,
    deps.logger,
    deps.bot.login,
    deps.commitsApi ?? deps.api,
  );
  const cacheRoot = deps.env.cacheDir ?? path.join(os.tmpdir(), "aider-bot-cache");
  const mirror = mirrorPlace(req, deps, cacheRoot);
  const runGit: RunGit = {
    // Only `undo` looks back (for the bot's last commit); every other run needs the branch's tip alone.
    clone: (r) => git.clone({ ...r, depth: req.verb === "undo" ? 50 : 1, ...(mirror ? { mirror } : {}) }),
    headSha: (dir) => git.headSha(dir),
    createBranch: (dir, branch) => git.createBranch(dir, branch),
    push: (r) => git.push(r),
    commitPaths: async (r) =>
      (await git.commit(r.dir, { paths: r.paths, subject: r.subject, body: r.body, trailers: r.trailers })).sha,
    recentCommits: (dir, n) => git.recentCommits(dir, n),
    revert: (r) => git.revert(r.dir, r.sha, r.trailers),
    formatPatch: (dir, base) => git.formatPatch(dir, base),
    readCommit: (dir, sha) => git.readCommit(dir, sha),
  };
  const root = jobsRoot(deps.env);
  // The check plan is read once: runJob asks for it while cloning, and container mode picks its image from it.
  let planP: ReturnType<typeof resolveChecks> | null = null;
  const checkPlan = (r: JobContext["req"]) =>
    (planP ??= resolveChecks(
      r.settings,
      createGitHubRepoReader(deps.api, { owner: r.owner, repo: r.repo, ref: r.defaultBranch }),
    ));
  return runJob(req, {
    github,
    git: runGit,
    warmWhileCloning: warmGrammarWhileCloning(deps.logger),
    coder: async (checkout, options, hooks) => {
      const plan = planP ? (await planP).plan : null;
      useContainerFor(
        req,
        checkout,
        deps,
        plan ? { ...(plan.image ? { workflowImage: plan.image.name } : {}), toolchain: plan.toolchain } : {},
      );
      return runCoder(
        options,
        createCoderDeps({
          root: checkout,
          exec: deps.exec,
          checkExec: deps.checkExec,
          git,
          llm: deps.llm,
          commitModel: options.weakModel ?? options.model,
          protectedPaths: options.protectedPaths,
          cacheDir: path.join(cacheRoot, "repomap", req.owner, req.repo),
          gitContentIds: true,
          ...(deps.env.mapThreads !== undefined ? { mapThreads: deps.env.mapThreads } : {}),
          onProgress: hooks.onProgress,
          ...(hooks.onTranscript ? { onTranscript: hooks.onTranscript } : {}),
          signal: hooks.signal,
        }),
      );
    },
    tempDir: {
      // The work dir is created if missing (a fresh volume, a cleaned /tmp): a job must never fail on that.
      create: async (prefix) =>
        mkdtemp(
          path.join(await mkdir(root, { recursive: true, mode: 0o700 }).then(() => root), `${prefix}${process.pid}-`),
        ),
      remove: (dir) => rm(dir, { recursive: true, force: true }),
    },
    render: {
      stage: renderStage,
      final: renderFinal,
      plan: (outcome, r) => renderPlanOutcome(outcome, r, job.command),
    },
    ...(deps.redact ? { redact: deps.redact } : {}),
    transcripts: createTranscriptStore(transcriptDir(cacheRoot)),
    // What runs is read from the DEFAULT branch through the API, never from the pull request's head (issue #30).
    checkPlan,
    logger: deps.logger,
    now: () => Date.now(),
    signal: deps.signal,
    // The PR/issue context before the coder, review-thread replies after it. Page links are built from the web
    // origin of the repository's html_url (github.com, or a GitHub Enterprise host).
    ...createContextHooks({
      req,
      api: deps.api,
      llm: deps.llm,
      botLogin: deps.bot.login,
      webUrl: job.webUrl ? new URL(job.webUrl).origin : "https://github.com",
      count: countTokens,
    }),
  });
}

/**
 * Container mode: tell the check exec the checkout and the image its commands use (the container starts now, while
 * the model works). Other modes have no `useContainer`.
 */
function useContainerFor(req: JobContext["req"], checkout: string, deps: ExecuteRunDeps, hints: PlanImageHints): void {
  if (!deps.checkExec.useContainer || deps.env.defaultImage === undefined) return;
  // The workflow job's `container:` and the discovered toolchain (issue #30's plan) come after the repo config and
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

/**
 * The repository's git mirror for this run's checkout (see `cloneFromMirror`), or null for a plain clone: mirrors
 * off, an `undo` (it clones 50 commits deep), a fork's branch (another repository, cloned as it is), or repository
 * commands running unsandboxed (they could write into the mirror later runs start from).
 */
export function mirrorPlace(req: JobContext["req"], deps: ExecuteRunDeps, cacheRoot: string) {
  if (deps.env.gitMirrors === false || deps.env.sandbox === "off" || req.verb === "undo") return null;
  if (req.target.kind !== "issue" && req.target.isFork) return null;
  return {
    root: path.join(cacheRoot, "git-mirrors"),
    scope: String(req.installationId),
    onFallback: (reason: string) => deps.logger.info({ reason }, "cloned without the repository's mirror"),
  };
}
