import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Logger } from "pino";
import { runCoder } from "../coder/run-coder.js";
import type { AppEnv } from "../config/env.js";
import { createContextHooks } from "../context/create-context-hooks.js";
import type { Exec } from "../exec/types.js";
import { createRunGitHub } from "../github/create-run-github.js";
import type { GitHubApi } from "../github/github-api.js";
import { renderFinal, renderStage } from "../github/render-status.js";
import type { JobHandler } from "../jobs/job-queue.js";
import { countTokens } from "../llm/count-tokens.js";
import type { LlmClient } from "../llm/types.js";
import { createCoderDeps } from "../run/create-coder-deps.js";
import { runJob } from "../run/run-job.js";
import type { RunRequest } from "../run/run-request.js";
import type { RunGit } from "../run/run-ports.js";
import { createGit } from "../workspace/create-git.js";

/**
 * The settings a job reads: where to make checkouts and caches, how many map threads. Not the whole AppEnv, so
 * the App key, the webhook secret and the model key are not handed to job code (the model key stays inside `llm`).
 */
export type JobEnv = Pick<AppEnv, "workDir" | "cacheDir" | "mapThreads">;

/** The {@link JobEnv} part of the app's environment. `jobEnv(readEnv())` */
export function jobEnv(env: AppEnv): JobEnv {
  return { workDir: env.workDir, cacheDir: env.cacheDir, mapThreads: env.mapThreads };
}

export interface JobRunnerDeps {
  env: JobEnv;
  exec: Exec;
  /** Exec for the repository's own commands (sandboxed when available). */
  checkExec: Exec;
  llm: LlmClient;
  /** An installation Octokit and a way to mint a git token scoped to `repo` (see `app/mint-repo-token`). */
  installation(id: number, repo: string): Promise<{ api: GitHubApi; token: () => Promise<string> }>;
  bot(): Promise<{ login: string; email: string }>;
  logger: Logger;
}

/** The queue's handler: runs one {@link RunRequest} with real git, the coder and GitHub writes. */
export function createJobRunner(deps: JobRunnerDeps): JobHandler<RunRequest> {
  return async (job, signal) => {
    const req = job.data;
    const { api, token } = await deps.installation(req.installationId, req.repo);
    const bot = await deps.bot();
    const git = createGit(deps.exec, { name: bot.login, email: bot.email });
    const webUrl = req.cloneUrl.replace(new RegExp(`/${req.owner}/${req.repo}(\\.git)?$`), "");
    const github = createRunGitHub(api, {
      owner: req.owner,
      repo: req.repo,
      issueNumber: req.target.number,
      statusCommentId: req.statusCommentId!,
      reactTo:
        req.target.kind === "review-comment"
          ? { kind: "review-comment", id: req.target.commentId }
          : req.triggerCommentId
            ? { kind: "issue-comment", id: req.triggerCommentId }
            : { kind: "issue" },
      webUrl,
      token,
    });
    const runGit: RunGit = {
      clone: (r) => git.clone({ ...r, depth: 50 }),
      headSha: (dir) => git.headSha(dir),
      createBranch: (dir, branch) => git.createBranch(dir, branch),
      push: (r) => git.push(r),
      commitPaths: async (r) => (await git.commit(r.dir, { paths: r.paths, subject: r.subject, body: r.body, trailers: r.trailers })).sha,
      recentCommits: (dir, n) => git.recentCommits(dir, n),
      revert: (r) => git.revert(r.dir, r.sha, r.trailers),
      formatPatch: (dir, base) => git.formatPatch(dir, base),
    };
    const cacheRoot = deps.env.cacheDir ?? path.join(os.tmpdir(), "aider-bot-cache");
    await runJob(req, {
      github,
      git: runGit,
      coder: (root, options, hooks) =>
        runCoder(
          options,
          createCoderDeps({
            root,
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
            signal: hooks.signal,
          }),
        ),
      tempDir: {
        create: (prefix) => mkdtemp(path.join(deps.env.workDir ?? os.tmpdir(), prefix)),
        remove: (dir) => rm(dir, { recursive: true, force: true }),
      },
      render: { stage: renderStage, final: renderFinal },
      logger: deps.logger,
      now: () => Date.now(),
      signal,
      // Issue #14 hook: PR/issue context before the coder, review-thread replies after it.
      ...createContextHooks({ req, api, llm: deps.llm, botLogin: bot.login, webUrl, count: countTokens }),
    });
  };
}
