import type { Logger } from "pino";
import type { AppEnv } from "../config/env.js";
import { collectContext } from "../context/fetch/collect-context.js";
import { recordReads } from "../github/read-ahead.js";
import { RepoGitHub } from "../github/repo-github.js";
import { tokenOctokit } from "../github/token-octokit.js";
import { loadRunInstructions } from "../run/prepare/load-run-instructions.js";
import { contextArgsOf } from "../run/prepare/prepare-pr-context.js";
import { resolveChecks } from "../run/prepare/resolve-checks.js";
import type { RunRequest } from "../run/run-request.js";
import { createSecretRedactor } from "../security/redact-secrets.js";
import { readDefaultBranchDevcontainer } from "./container-target.js";
import { wantsContainer } from "./create-check-exec.js";
import type { ReadJobInputs } from "./reads-prefetch.js";

/**
 * Whether triage reads ahead for this run (see reads-prefetch): not for `undo` (it reads nothing to plan) nor a fork's
 * pull request, as the fetch into the mirror is not made for them either.
 */
export function readsAheadFor(req: Pick<RunRequest, "verb" | "target">): boolean {
  return req.verb !== "undo" && !(req.target.kind !== "issue" && req.target.isFork);
}

/**
 * The reads a job process makes as it starts, made here with its own API token and the same code, each recorded
 * for the job (see read-ahead's `recordReads`): the check plan from the default branch (a `run`), the context of its
 * pull request or issue (the images its comments link to and the earlier runs' summary are left to the job), the
 * instruction files, and in container mode the default branch's devcontainer. What is computed from them here is
 * thrown away: only GitHub's answers go to the job, which reads them as it would read GitHub.
 */
export function readJobInputs(
  env: Pick<AppEnv, "githubBaseUrl" | "throttle" | "sandbox"> & Partial<Pick<AppEnv, "defaultImage">>,
  botLogin: () => Promise<string>,
  log: Logger,
): ReadJobInputs {
  const devcontainer = wantsContainer(env) && env.defaultImage !== undefined;
  let Octokit: ReturnType<typeof tokenOctokit> | null = null;
  return async (req, apiToken, onRead) => {
    // The job's own client class over a redactor that knows its token: what it logs is the job's log lines.
    Octokit ??= tokenOctokit(createSecretRedactor(), { throttle: env.throttle, log });
    const api = new Octokit({
      auth: apiToken,
      log: quietLog(log),
      ...(env.githubBaseUrl ? { baseUrl: env.githubBaseUrl } : {}),
    });
    recordReads(api, onRead);
    const github = RepoGitHub.create({ octokit: api, owner: req.owner, repo: req.repo });
    const args = contextArgsOf(req, await botLogin(), "https://github.com");
    await Promise.allSettled([
      // The App reads the check plan from the default branch (run-settings: `checkPlan`), as the job does.
      req.verb === "run" ? resolveChecks(req.settings, github.reader(req.defaultBranch)) : null,
      // The count is the job's to make (its tokenizer is not loaded here); the reads do not depend on it.
      args ? collectContext(github, args, () => 0) : null,
      loadRunInstructions(req, github),
      devcontainer ? readDefaultBranchDevcontainer(req, api) : null,
    ]);
  };
}

/** Octokit's request log at debug only: these reads are the job's, and it logs them when it takes them. */
function quietLog(log: Logger) {
  const debug = (message: string) => log.debug(message);
  return { debug, info: debug, warn: (message: string) => log.warn(message), error: (m: string) => log.error(m) };
}
