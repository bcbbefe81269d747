import path from "node:path";
import type { Logger } from "pino";
import { checksFailingCommit } from "../coder/commit-policy.js";
import type { PreparedContext } from "../context/prepare-pr-context.js";
import type { CoderOptions, CoderResult } from "../coder/types.js";
import { issueBranchName } from "./branch-name.js";
import type { RunRequest } from "./run-request.js";
import type { RunCoderPort, RunGit, RunGitHub } from "./run-ports.js";
import { runTrailers } from "./run-trailers.js";
import type { RunStage, RunOutcome } from "./run-outcome.js";
import { undoLastRun } from "./undo-last-run.js";

export interface RunJobDeps {
  github: RunGitHub;
  git: RunGit;
  coder: RunCoderPort;
  /** Creates an empty private temporary directory; `remove` deletes it. */
  tempDir: { create(prefix: string): Promise<string>; remove(dir: string): Promise<void> };
  render: {
    stage(stage: RunStage, req: RunRequest): string;
    final(outcome: RunOutcome, req: RunRequest): string;
  };
  logger: Logger;
  now(): number;
  signal: AbortSignal;
  /** Issue #14 hook: the PR/issue context, read before the coder (context/prepare-pr-context; never throws). */
  prContext?(req: RunRequest): Promise<PreparedContext | null>;
  /** Issue #14 hook: after the outcome, before the final status (thread replies); markdown for the status comment. */
  afterRun?(req: RunRequest, outcome: RunOutcome, prepared: PreparedContext | null): Promise<string | null>;
}

/**
 * One queued request, start to finish: clone → coder → push (or PR) → final status comment, reaction and Check Run.
 * Never throws for expected failures: every path ends in a final status comment (and 😕 when it failed).
 */
export async function runJob(req: RunRequest, deps: RunJobDeps): Promise<RunOutcome> {
  const started = deps.now();
  const log = deps.logger.child({ job: req.jobId, delivery: req.deliveryId, repo: `${req.owner}/${req.repo}`, number: req.target.number });
  let lastStage = "";
  const stage = async (s: RunStage) => {
    if (s === lastStage) return;
    lastStage = s;
    log.info({ stage: s }, "stage");
    await deps.github.updateStatus(deps.render.stage(s, req)).catch((error: unknown) => log.warn({ err: error }, "status update failed"));
  };
  const headSha = req.target.kind === "issue" ? null : req.target.headSha;
  const checkRunId = headSha && req.verb === "run" ? await deps.github.startCheckRun(headSha).catch(() => null) : null;
  // Issue #14 hook: PR context first (address-reviews / fix-ci with nothing to do stop here, with the reason).
  const prepared = (await deps.prContext?.(req).catch((error: unknown) => (log.warn({ err: error }, "context failed"), null))) ?? null;
  const dir = await deps.tempDir.create("aider-bot-job-");
  let outcome: RunOutcome;
  try {
    outcome = prepared?.refuse ? { kind: "nothing-to-do", message: prepared.refuse, elapsedMs: 0 } : await execute(req, deps, dir, stage, prepared);
  } catch (error) {
    log.error({ err: error }, "run failed");
    outcome = { kind: "error", message: error instanceof Error ? error.message : String(error), elapsedMs: deps.now() - started };
  } finally {
    await deps.tempDir.remove(dir).catch(() => undefined);
  }
  outcome.elapsedMs = deps.now() - started;
  // Issue #14 hook: thread replies/resolves, then the context details go into the final status comment.
  const after = await deps.afterRun?.(req, outcome, prepared).catch((error: unknown) => (log.warn({ err: error }, "after-run step failed"), null));
  const contextNotes = [after, prepared?.details].filter((x): x is string => !!x);
  if (contextNotes.length) outcome.context = contextNotes.join("\n\n");
  const ok = outcome.kind === "pushed" || outcome.kind === "pull-request" || outcome.kind === "answered" || outcome.kind === "reverted" || outcome.kind === "nothing-to-do";
  const body = deps.render.final(outcome, req);
  await deps.github.updateStatus(body).catch((error: unknown) => log.warn({ err: error }, "final status update failed"));
  if (req.target.kind === "review-comment") {
    await deps.github.replyToReviewComment(req.target.number, req.target.commentId, body).catch((error: unknown) => log.warn({ err: error }, "review reply failed"));
  }
  await deps.github.react(ok ? "rocket" : "confused").catch(() => undefined);
  if (checkRunId !== null) {
    await deps.github
      .finishCheckRun(checkRunId, { conclusion: ok && !checksStillFail(outcome) ? "success" : "failure", title: checkTitle(outcome), summary: body })
      .catch((error: unknown) => log.warn({ err: error }, "check run update failed"));
  }
  log.info({ outcome: outcome.kind, ms: outcome.elapsedMs }, "run finished");
  return outcome;
}

async function execute(req: RunRequest, deps: RunJobDeps, dir: string, stage: (s: RunStage) => Promise<void>, prepared: PreparedContext | null): Promise<RunOutcome> {
  const { target } = req;
  const branch = target.kind === "issue" ? req.defaultBranch : target.headRef;
  const url = target.kind === "issue" ? req.cloneUrl : target.headCloneUrl;
  await stage("cloning");
  const token = await deps.github.installationToken();
  const checkout = path.join(dir, "checkout");
  await deps.git.clone({ url, branch, dir: checkout, token });
  const baseSha = await deps.git.headSha(checkout);

  if (req.verb === "undo") {
    if (target.kind === "issue") return { kind: "refused", message: "`undo` works on pull requests: it reverts the bot's last commit there.", elapsedMs: 0 };
    await stage("pushing");
    return undoLastRun({ req, deps, dir: checkout, branch, token, headSha: baseSha });
  }

  const workBranch = target.kind === "issue" ? issueBranchName(req.settings.branchPrefix, target.number, target.title) : branch;
  if (target.kind === "issue") await deps.git.createBranch(checkout, workBranch);

  const options = coderOptions(req, prepared);
  const result = await deps.coder(checkout, options, {
    signal: deps.signal,
    onProgress: (p) => {
      const map = { mapping: "mapping", thinking: "thinking", applying: "applying", syntax: "lint", lint: "lint", test: "tests", committing: "pushing" } as const;
      void stage(map[p.stage]);
    },
  });
  if (deps.signal.aborted) {
    const reason = deps.signal.reason instanceof Error && /shut/i.test(deps.signal.reason.message) ? "shutdown" : "cancel";
    return { kind: "cancelled", reason, result, elapsedMs: 0 };
  }
  if (req.verb === "ask") return { kind: "answered", result, elapsedMs: 0 };
  if (result.outcome !== "changed" && !(result.outcome === "checks-failed" && !req.settings.requireGreenChecks && result.editedFiles.length > 0)) {
    return { kind: "not-pushed", result, elapsedMs: 0 };
  }
  let sha: string;
  if (result.outcome === "changed" && result.commit) sha = result.commit.sha;
  else {
    // Checks failed but the repo does not require green checks: commit what we have and say so.
    sha = await deps.git.commitPaths({
      dir: checkout,
      paths: result.editedFiles.map((f) => f.path),
      ...checksFailingCommit(req.message, req.requester.login),
      trailers: runTrailers(req.jobId, req.requester),
    });
  }
  if (target.kind !== "issue" && target.isFork) {
    // We cannot (and must not) push to a fork with our installation token: hand the change over as a patch.
    const patch = await deps.git.formatPatch(checkout, baseSha);
    return { kind: "patch", result, sha, patch, elapsedMs: 0 };
  }
  await stage("pushing");
  await deps.git.push({ dir: checkout, branch: workBranch, token });
  if (target.kind !== "issue") return { kind: "pushed", result, sha, url: deps.github.commitUrl(sha), elapsedMs: 0 };

  const existing = await deps.github.findOpenPullRequest(workBranch);
  const pr =
    existing ??
    (await deps.github.createPullRequest({
      title: prTitle(result, target.title),
      body: prBody(req, result),
      head: workBranch,
      base: req.defaultBranch,
      draft: req.settings.draft,
    }));
  if (!existing && !req.requester.login.endsWith("[bot]")) await deps.github.requestReview(pr.number, req.requester.login).catch(() => undefined);
  return { kind: "pull-request", result, sha, pr, branch: workBranch, elapsedMs: 0 };
}

function coderOptions(req: RunRequest, prepared: PreparedContext | null): CoderOptions {
  const s = req.settings;
  return {
    // Issue #14: address-reviews / fix-ci build their instruction from the threads or checks; the PR context is data.
    message: prepared?.message ?? req.message,
    untrustedContext: req.untrustedContext,
    ...(prepared?.blocks.length ? { prContext: prepared.blocks } : {}),
    files: prepared ? [...new Set([...req.files, ...prepared.files])] : req.files,
    readFiles: [],
    editFormat: s.editFormat,
    model: s.model,
    weakModel: s.weakModel,
    lintCommands: s.lint,
    testCommand: s.test,
    autoTest: s.autoTest || (prepared?.autoTest ?? false),
    ...(prepared?.autoTest ? { reproduceTest: true } : {}),
    setupCommands: s.setup,
    maxReflections: s.maxReflections,
    mapTokens: s.mapTokens,
    askOnly: req.verb === "ask",
    commit: true,
    coAuthor: undefined,
    trailers: runTrailers(req.jobId, req.requester),
    protectedPaths: s.protectedPaths,
    budget: { ...s.budget, maxWallMs: s.timeoutMs },
    commandTimeoutMs: s.commandTimeoutMs,
  };
}

function prTitle(result: CoderResult, issueTitle: string): string {
  return result.outcome === "changed" && result.commit ? result.commit.subject : `Fix: ${issueTitle}`.slice(0, 120);
}

function prBody(req: RunRequest, result: CoderResult): string {
  const files = "editedFiles" in result ? result.editedFiles.map((f) => `- \`${f.path}\` (+${f.added} −${f.removed})`).join("\n") : "";
  return [
    `Fixes #${req.target.number}`,
    "",
    `Opened by aider-bot at the request of @${req.requester.login}.`,
    files ? `\n**Files changed**\n${files}` : "",
    result.explanation ? `\n<details><summary>The model's explanation</summary>\n\n${result.explanation.slice(0, 20000)}\n\n</details>` : "",
  ].join("\n");
}

function checksStillFail(outcome: RunOutcome): boolean {
  return "result" in outcome && outcome.result?.outcome === "checks-failed";
}

function checkTitle(outcome: RunOutcome): string {
  switch (outcome.kind) {
    case "pushed":
    case "pull-request":
      return checksStillFail(outcome) ? "Changes pushed; checks still fail" : "Changes pushed";
    case "patch":
      return "Patch posted (fork)";
    case "answered":
      return "Answered";
    case "reverted":
      return "Reverted";
    case "nothing-to-do":
      return "Nothing to do";
    case "cancelled":
      return "Cancelled";
    case "not-pushed":
      return `No changes pushed (${outcome.result.outcome})`;
    default:
      return "Failed";
  }
}
