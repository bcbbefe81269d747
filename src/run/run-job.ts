import path from "node:path";
import type { Logger } from "pino";
import { checksFailingCommit } from "../coder/commit-policy.js";
import { createTranscriptRecorder, type TranscriptRecorder } from "../coder/transcript/transcript-recorder.js";
import type { CoderOptions, CoderResult } from "../coder/types.js";
import type { PreparedContext } from "./prepare-pr-context.js";
import { renderRunInputs } from "../context/render-run-inputs.js";
import { issueBranchName } from "./branch-name.js";
import { checkSpecsOf, type ResolvedChecks } from "./resolve-checks.js";
import { publishCommit, signingNote } from "./publish-commit.js";
import { publishToFork } from "./publish-fork.js";
import type { RunRequest } from "./run-request.js";
import type { RunCoderPort, RunGit, RunGitHub } from "./run-ports.js";
import { runTrailers } from "./run-trailers.js";
import type { RunStage, RunOutcome } from "./run-outcome.js";
import { createStatusWriter } from "./status-writer.js";
import { stopReasonOf } from "./stop-reason.js";
import { undoLastRun } from "./undo-last-run.js";
import { runCodePhase } from "./code-phase.js";
import { publishTranscript, type TranscriptStore } from "./publish-transcript.js";

export interface RunJobDeps {
  github: RunGitHub;
  git: RunGit;
  coder: RunCoderPort;
  /** Creates an empty private temporary directory; `remove` deletes it. */
  tempDir: { create(prefix: string): Promise<string>; remove(dir: string): Promise<void> };
  render: {
    stage(stage: RunStage, req: RunRequest): string;
    final(outcome: RunOutcome, req: RunRequest): string;
    /** Issue #34: the plan comment a `plan` run leaves (its status comment becomes the plan). */
    plan?(outcome: Extract<RunOutcome, { kind: "planned" }>, req: RunRequest): string;
  };
  /** Issue #34: the redactor of GitHub writes, applied to the transcript before it is cut, stored or published. */
  redact?(text: string): string;
  /** Issue #34: where operators read transcripts later (`aider-bot transcript <run-id>`). */
  transcripts?: TranscriptStore;
  logger: Logger;
  now(): number;
  signal: AbortSignal;
  /** Least time between two stage edits of the status comment (default 3 s); the final edit is always made. */
  statusGapMs?: number;
  /**
   * Work started while the branch is cloned, for the job's later steps (loading the grammar of the repository's
   * language); not awaited, and its failure is its own business.
   */
  warmWhileCloning?(req: RunRequest): void;
  /** The PR/issue context, read before the coder (run/prepare-pr-context; never throws). */
  prContext?(req: RunRequest): Promise<PreparedContext | null>;
  /**
   * The run's check commands (issue #30: configured keys, else discovered on the DEFAULT branch); started while the
   * branch is cloned. Absent: the configured commands run as plain options.
   */
  checkPlan?(req: RunRequest): Promise<ResolvedChecks>;
  /** After the outcome, before the final status (review-thread replies); markdown for the status comment. */
  afterRun?(req: RunRequest, outcome: RunOutcome, prepared: PreparedContext | null): Promise<string | null>;
}

/** The checkout a run works in, made by {@link prepare}. */
interface Prepared {
  checkout: string;
  /** The branch cloned: the PR's head, or the default branch of an issue. */
  branch: string;
  /** Where the result is pushed: the PR's head, or a new branch for an issue. */
  workBranch: string;
  /**
   * The commit cloned, read only where it is needed (`undo` checks the branch against it, a fork's patch starts from
   * it): an ordinary run does without that git process.
   */
  baseSha: string | null;
  token: string;
}

/** What {@link verify} makes of the coder's result: whether anything is published, and what. */
type Verdict =
  { kind: "answer" } | { kind: "keep-local" } | { kind: "publish"; commit: "made" | "uncommitted" | "checks-failing" };

type Stage = (s: RunStage) => void;

/**
 * One request, start to finish, as named phases: prepare (clone, branch) → code (the coder loop) → verify (is there
 * something to publish?) → publish (commit, push or pull request or patch) → report (final status comment, review
 * reply, reaction, Check Run). Expected failures are outcomes; an unexpected throw anywhere is mapped ONCE to the
 * "run failed" outcome. Every path ends in a final status comment (and 😕 when it failed).
 */
export async function runJob(req: RunRequest, deps: RunJobDeps): Promise<RunOutcome> {
  const started = deps.now();
  const log = deps.logger.child({
    job: req.jobId,
    delivery: req.deliveryId,
    repo: `${req.owner}/${req.repo}`,
    number: req.target.number,
  });
  const status = createStatusWriter((body) => deps.github.updateStatus(body), {
    minGapMs: deps.statusGapMs ?? 3_000,
    now: deps.now,
    onError: (error) => log.warn({ err: error }, "status update failed"),
  });
  let lastStage: RunStage | "" = "";
  const stage: Stage = (s) => {
    if (s === lastStage) return;
    lastStage = s;
    log.info({ stage: s }, "stage");
    status.stage(deps.render.stage(s, req));
  };
  const headSha = req.target.kind === "issue" ? null : req.target.headSha;
  // Not fatal: without a Check Run the status comment still tells the whole story. Started while the branch is
  // cloned (nothing before the report needs its id).
  const checkRunP: Promise<number | null> =
    headSha && req.verb === "run"
      ? deps.github
          .startCheckRun(headSha)
          .catch((error: unknown) => (log.warn({ err: error }, "check run could not be started"), null))
      : Promise.resolve(null);
  // The PR's context is fetched while the branch is cloned (both wait on the network, neither needs the other),
  // started once the clone is (see prepare), or first when the context may refuse the run.
  let contextP: Promise<PreparedContext | null> | null = null;
  const context = () =>
    (contextP ??= deps.prContext
      ? Promise.resolve(req)
          .then((r) => deps.prContext!(r))
          .catch((error: unknown) => (log.warn({ err: error }, "context failed"), null))
      : Promise.resolve(null));
  let outcome: RunOutcome;
  let dir: string | null = null;
  const transcript = createTranscriptRecorder();
  const plan: { checks: ResolvedChecks | null } = { checks: null };
  // The checkout is removed while the outcome is reported (the report needs nothing of it), and the run returns only
  // once it is gone.
  let removed: Promise<unknown> = Promise.resolve();
  try {
    dir = await deps.tempDir.create("aider-bot-job-");
    outcome = await phases(req, deps, dir, stage, context, transcript, plan);
    if (plan.checks) outcome.checks = plan.checks;
  } catch (error) {
    log.error({ err: error }, "run failed");
    outcome = { kind: "error", message: error instanceof Error ? error.message : String(error), elapsedMs: 0 };
  } finally {
    const made = dir;
    if (made)
      removed = deps.tempDir
        .remove(made)
        .catch((error: unknown) =>
          log.warn({ err: error, dir: made }, "could not remove the job's checkout; the next start sweeps it"),
        );
  }
  try {
    outcome.elapsedMs = deps.now() - started;
    const prContext = await context();
    // Review-thread replies and resolves, then the context details, go into the final status comment.
    const after = await deps
      .afterRun?.(req, outcome, prContext)
      .catch((error: unknown) => (log.warn({ err: error }, "after-run step failed"), null));
    const inputs = renderRunInputs(
      prContext?.instructions,
      "result" in outcome ? outcome.result?.instructionFiles : undefined,
      prContext?.images,
    );
    const contextNotes = [after, prContext?.details, inputs].filter((x): x is string => !!x);
    if (contextNotes.length) outcome.context = contextNotes.join("\n\n");
    const checkRunId = await checkRunP;
    const text = await publishTranscript({ req, deps, outcome, checkRunId, events: transcript.events(), log });
    await report(req, deps, outcome, checkRunId, (body) => status.final(body), log, text);
  } finally {
    await removed;
  }
  log.info({ outcome: outcome.kind, ms: outcome.elapsedMs }, "run finished");
  return outcome;
}

async function phases(
  req: RunRequest,
  deps: RunJobDeps,
  dir: string,
  stage: Stage,
  contextOf: () => Promise<PreparedContext | null>,
  transcript: TranscriptRecorder,
  plan: { checks: ResolvedChecks | null },
): Promise<RunOutcome> {
  // address-reviews / fix-ci read their context first: with nothing to do they stop before cloning, with the reason.
  // A plain run (the context only informs the model) clones while the context is fetched.
  const mayRefuse = req.context !== undefined && req.context.mode.kind !== "plain";
  const context = mayRefuse ? await contextOf() : null;
  if (context?.refuse) return { kind: "nothing-to-do", message: context.refuse, elapsedMs: 0 };
  // The check plan is read (from the default branch) while the branch is cloned; resolveChecks never throws.
  const checksP = req.verb === "run" && deps.checkPlan ? deps.checkPlan(req).catch(() => null) : null;
  const prepared = await prepare(req, deps, dir, stage, () => void contextOf());
  if (req.verb === "undo") {
    if (req.target.kind === "issue")
      return {
        kind: "refused",
        message: "`undo` works on pull requests: it reverts the bot's last commit there.",
        elapsedMs: 0,
      };
    stage("pushing");
    return undoLastRun({
      req,
      deps,
      dir: prepared.checkout,
      branch: prepared.branch,
      token: prepared.token,
      headSha: baseOf(prepared),
    });
  }
  const late = context ?? (await contextOf());
  if (late?.refuse) return { kind: "nothing-to-do", message: late.refuse, elapsedMs: 0 };
  // Issue #34: an approved plan runs only on the commit it was made on (triage checked too; someone may have pushed since).
  if (req.plan && baseOf(prepared) !== req.plan.sha) {
    const now = baseOf(prepared);
    return {
      kind: "refused",
      message: `The branch moved since this plan was made: it was made on \`${req.plan.sha.slice(0, 7)}\` and the head is now \`${now.slice(0, 7)}\` (someone pushed). Nothing was changed; ask for a new plan with \`/aider plan …\`.`,
      elapsedMs: 0,
    };
  }
  plan.checks = checksP ? await checksP : null;
  const result = await code(req, deps, prepared, stage, late, transcript, plan.checks);
  const stopped = stopReasonOf(deps.signal);
  if (stopped) return { kind: "cancelled", reason: stopped, result, elapsedMs: 0 };
  const verdict = verify(req, result);
  if (verdict.kind === "answer" && req.verb === "plan" && result.outcome === "no-changes" && result.answer.trim()) {
    return { kind: "planned", result, plan: result.answer, sha: baseOf(prepared), elapsedMs: 0 };
  }
  if (verdict.kind === "answer") return { kind: "answered", result, elapsedMs: 0 };
  if (verdict.kind === "keep-local") return { kind: "not-pushed", result, elapsedMs: 0 };
  return publish(req, deps, prepared, result, verdict.commit, stage);
}

/**
 * Phase 1: a fresh clone of the branch the run starts from (a re-run after a crash starts here again). The clone is
 * the run's longest wait, so it starts before the status update and `whileCloning` (the PR's context) ask for this
 * process's time: started after them, it waited ~20–40 ms for their requests to be built.
 */
async function prepare(
  req: RunRequest,
  deps: RunJobDeps,
  dir: string,
  stage: Stage,
  whileCloning: () => void,
): Promise<Prepared> {
  const { target } = req;
  const branch = target.kind === "issue" ? req.defaultBranch : target.headRef;
  const url = target.kind === "issue" ? req.cloneUrl : target.headCloneUrl;
  const token = await deps.github.installationToken();
  const checkout = path.join(dir, "checkout");
  const cloned = deps.git.clone({ url, branch, dir: checkout, token });
  stage("cloning");
  whileCloning();
  deps.warmWhileCloning?.(req);
  await cloned;
  const needsBase =
    req.verb === "undo" || req.verb === "plan" || req.plan !== undefined || (target.kind !== "issue" && target.isFork);
  const baseSha = needsBase ? await deps.git.headSha(checkout) : null;
  const workBranch =
    target.kind === "issue" && req.verb !== "undo"
      ? issueBranchName(req.settings.branchPrefix, target.number, target.title)
      : branch;
  if (workBranch !== branch) await deps.git.createBranch(checkout, workBranch);
  return { checkout, branch, workBranch, baseSha, token };
}

/** The commit cloned, which {@link prepare} reads for the runs that need it (undo, a fork's patch). */
function baseOf(prepared: Prepared): string {
  if (prepared.baseSha === null)
    throw new Error("the cloned commit was not read for this run (an undo or a fork's patch needs it)");
  return prepared.baseSha;
}

/** Phase 2: the coder loop on the checkout (one step, or architect then editor), its progress shown as stages. */
function code(
  req: RunRequest,
  deps: RunJobDeps,
  prepared: Prepared,
  stage: Stage,
  context: PreparedContext | null,
  transcript: TranscriptRecorder,
  checks: ResolvedChecks | null,
): Promise<CoderResult> {
  const map = {
    mapping: "mapping",
    thinking: "thinking",
    applying: "applying",
    syntax: "lint",
    lint: "lint",
    test: "tests",
    committing: "pushing",
  } as const;
  return runCodePhase({
    req,
    options: coderOptions(req, context, checks),
    run: (options, sink) =>
      deps.coder(prepared.checkout, options, {
        signal: deps.signal,
        onProgress: (p) => stage(map[p.stage]),
        onTranscript: sink,
      }),
    transcript,
    ...(req.plan && deps.github.tickPlan
      ? { tick: (done: number[]) => deps.github.tickPlan!(req.plan!.commentId, done) }
      : {}),
    onError: (error) => deps.logger.warn({ err: error }, "plan progress update failed"),
  });
}

/** Phase 3 (pure): an answer, a result kept back (failed, or checks red where green is required), or one to publish. */
function verify(req: RunRequest, result: CoderResult): Verdict {
  if (req.verb === "ask" || req.verb === "plan") return { kind: "answer" };
  // A change the coder did not commit (commits off) is committed here, with the plain-commit policy.
  if (result.outcome === "changed") return { kind: "publish", commit: result.commit ? "made" : "uncommitted" };
  // Checks failed but the repo does not require green checks: commit what we have and say so.
  if (result.outcome === "checks-failed" && !req.settings.requireGreenChecks && result.editedFiles.length > 0)
    return { kind: "publish", commit: "checks-failing" };
  return { kind: "keep-local" };
}

/** Phase 4: commit if needed, then push to the PR (never forced), open the issue's PR, or hand a fork a patch. */
async function publish(
  req: RunRequest,
  deps: RunJobDeps,
  prepared: Prepared,
  result: CoderResult,
  commit: "made" | "uncommitted" | "checks-failing",
  stage: Stage,
): Promise<RunOutcome> {
  const { target } = req;
  const { checkout, workBranch, token } = prepared;
  const sha =
    commit === "made" && result.outcome === "changed" && result.commit
      ? result.commit.sha
      : await deps.git.commitPaths({
          dir: checkout,
          paths: "editedFiles" in result ? result.editedFiles.map((f) => f.path) : [],
          ...checksFailingCommit(req.message, req.requester.login),
          trailers: runTrailers(req.jobId, req.requester),
        });
  if (target.kind !== "issue" && target.isFork) {
    // A fork's branch only through the API, when its author allows maintainer edits; otherwise a patch (issue #34).
    return publishToFork({ req, target, deps, dir: checkout, sha, base: baseOf(prepared), result });
  }
  stage("pushing");
  // Issue #34: made (and signed) by GitHub's API where it can; the published sha is the one GitHub has.
  const published = await publishCommit({
    req,
    deps,
    dir: checkout,
    sha,
    branch: workBranch,
    token,
    newBranch: target.kind === "issue",
  });
  const note = signingNote(published);
  const made = published.via === "api" ? published.oid : sha;
  if (target.kind !== "issue")
    return {
      kind: "pushed",
      result,
      sha: made,
      url: deps.github.commitUrl(made),
      elapsedMs: 0,
      ...(note ? { signing: note } : {}),
    };
  const pr = await deps.github.openPullRequest({
    branch: workBranch,
    base: req.defaultBranch,
    draft: req.settings.draft,
    issue: { number: target.number, title: target.title },
    requester: req.requester,
    result,
  });
  return {
    kind: "pull-request",
    result,
    sha: made,
    pr,
    branch: workBranch,
    elapsedMs: 0,
    ...(note ? { signing: note } : {}),
  };
}

/**
 * Phase 5: the outcome on GitHub — final status (and review-thread reply), 🚀 or 😕, the Check Run completed. The
 * writes are independent of one another and go out together; each failure is logged, none stops the others.
 */
async function report(
  req: RunRequest,
  deps: RunJobDeps,
  outcome: RunOutcome,
  checkRunId: number | null,
  writeFinal: (body: string) => Promise<void>,
  log: Logger,
  transcript: string | null,
): Promise<void> {
  const ok =
    outcome.kind === "pushed" ||
    outcome.kind === "pull-request" ||
    outcome.kind === "answered" ||
    outcome.kind === "planned" ||
    outcome.kind === "reverted" ||
    outcome.kind === "nothing-to-do";
  const body =
    outcome.kind === "planned" && deps.render.plan ? deps.render.plan(outcome, req) : deps.render.final(outcome, req);
  // Stopped by a shutdown, the job goes back in the queue: its re-run reacts and completes the Check Run.
  if (outcome.kind === "cancelled" && outcome.reason === "shutdown") return await writeFinal(body);
  const target = req.target;
  await Promise.all([
    // A new plan supersedes the thread's older ones once it is posted.
    outcome.kind === "planned" && deps.github.supersedeOlderPlans
      ? writeFinal(body).then(() =>
          deps.github.supersedeOlderPlans!().catch((error: unknown) =>
            log.warn({ err: error }, "could not mark older plans superseded"),
          ),
        )
      : writeFinal(body),
    target.kind === "review-comment"
      ? deps.github
          .replyToReviewComment(target.number, target.commentId, body)
          .catch((error: unknown) => log.warn({ err: error }, "review reply failed"))
      : null,
    deps.github
      .react(ok ? "rocket" : "confused")
      .catch((error: unknown) => log.warn({ err: error }, "final reaction failed")),
    checkRunId === null
      ? null
      : deps.github
          .finishCheckRun(checkRunId, {
            conclusion: ok && !checksStillFail(outcome) ? "success" : "failure",
            title: checkTitle(outcome),
            summary: body,
            ...(transcript ? { text: transcript } : {}),
          })
          .catch((error: unknown) => log.warn({ err: error }, "check run update failed")),
  ]);
}

function coderOptions(req: RunRequest, context: PreparedContext | null, checks: ResolvedChecks | null): CoderOptions {
  const s = req.settings;
  return {
    // address-reviews / fix-ci build their instruction from the threads or checks; the PR context is data.
    message: context?.message ?? req.message,
    untrustedContext: req.untrustedContext,
    ...(context?.blocks.length ? { prContext: context.blocks } : {}),
    ...(context?.instructions ? { instructions: context.instructions } : {}),
    ...(context?.images ? { images: context.images } : {}),
    files: context ? [...new Set([...req.files, ...context.files])] : req.files,
    ...(context?.hintFiles?.length ? { hintFiles: context.hintFiles } : {}),
    readFiles: [],
    editFormat: s.editFormat,
    model: s.model,
    weakModel: s.weakModel,
    lintCommands: s.lint,
    testCommand: s.test,
    autoTest: s.autoTest || (context?.autoTest ?? false),
    ...(context?.autoTest ? { reproduceTest: true } : {}),
    setupCommands: s.setup,
    ...(checks ? { checkCommands: checkSpecsOf(checks) } : {}),
    maxReflections: s.maxReflections,
    mapTokens: s.mapTokens,
    askOnly: req.verb === "ask" || req.verb === "plan",
    ...(req.verb === "plan" ? { architect: true } : {}),
    commit: true,
    coAuthor: undefined,
    trailers: runTrailers(req.jobId, req.requester),
    protectedPaths: s.protectedPaths,
    budget: { ...s.budget, maxWallMs: s.timeoutMs },
    commandTimeoutMs: s.commandTimeoutMs,
  };
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
    case "planned":
      return "Plan posted for approval";
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
