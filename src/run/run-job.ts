import type { Logger } from "pino";
import { createTranscriptRecorder, type TranscriptRecorder } from "../coder/transcript/transcript-recorder.js";
import { renderRunInputs } from "../context/render-run-inputs.js";
import { createCheckoutWork, type CheckoutWork } from "./checkout-work.js";
import { codeOnCheckout } from "./code/code-phase.js";
import { baseOf, prepareCheckout } from "./prepare/prepare-checkout.js";
import type { PreparedContext } from "./prepare/prepare-pr-context.js";
import { createCommitAhead } from "./publish/commit-ahead.js";
import { publishResult, verifyResult } from "./publish/publish-result.js";
import { publishTranscript } from "./report/publish-transcript.js";
import { reportOutcome } from "./report/report-outcome.js";
import type { ResolvedChecks } from "./prepare/resolve-checks.js";
import type { RunJobDeps, Stage } from "./run-job-deps.js";
import { checksRan, type RunEnding, type RunOutcome } from "./run-outcome.js";
import { PHASE_OF_STAGE, type RunStage } from "../run-stages.js";
import { recordMetric } from "../metrics/record-metric.js";
import type { RunRequest } from "./run-request.js";
import { createStatusWriter, type StatusWriter } from "./report/status-writer.js";
import { stopReasonOf } from "./stop-reason.js";
import { undoLastRun } from "./publish/undo-last-run.js";

/** The status comment's line when the installation has not granted `checks: write`. */
export const CHECK_RUN_SKIPPED =
  "ℹ️ The Check Run was skipped: this installation has not granted the App `checks: write` (an owner can accept it in the installation's settings). This comment is the whole report.";

type Published = Awaited<ReturnType<typeof publishTranscript>>;

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
    // A run on a branch has no issue or pull request: its log names the branch instead of a number.
    ...(req.target.kind === "branch" ? { branch: req.target.headRef } : { number: req.target.number }),
  });
  const status = createStatusWriter((body) => deps.github.updateStatus(body), {
    minGapMs: deps.statusGapMs ?? 3_000,
    now: deps.now,
    onError: (error) => log.warn({ err: error }, "status update failed"),
  });
  const { stage, leaveStage } = trackStages(req, deps, log, status);
  const { checkRunP, checkRunNote } = startCheckRun(req, deps, log);
  // The PR's context is fetched while the branch is cloned (both wait on the network, neither needs the other),
  // started once the clone is (see prepare), or first when the context may refuse the run.
  let contextP: Promise<PreparedContext | null> | null = null;
  const { prContext } = deps;
  const context = () =>
    (contextP ??= prContext
      ? Promise.resolve(req)
          .then((r) => prContext(r))
          .catch((error: unknown) => (log.warn({ err: error }, "context failed"), null))
      : Promise.resolve(null));
  let ran: PhasesEnd;
  let dir: string | null = null;
  const transcript = createTranscriptRecorder();
  // The checkout is removed while the outcome is reported (the report needs nothing of it), and the run returns only
  // once it is gone; what still runs on it (the base's checks) is stopped and awaited first.
  let removed: Promise<unknown> = Promise.resolve();
  const work = createCheckoutWork();
  const transcriptOut = transcriptPublisher(
    () =>
      checkRunP.then((checkRunId) => publishTranscript({ req, deps, checkRunId, events: transcript.events(), log })),
    () => transcript.events().length,
  );
  try {
    dir = await deps.tempDir.create("aider-bot-job-");
    ran = await phases(req, deps, dir, stage, context, transcript, work.keep, transcriptOut.whilePublishing);
  } catch (error) {
    log.error({ err: error }, "run failed");
    ran = { ending: { kind: "error", message: error instanceof Error ? error.message : String(error) }, checks: null };
  } finally {
    const made = dir;
    if (made)
      removed = work
        .end()
        .then(() => deps.tempDir.remove(made))
        .catch((error: unknown) =>
          log.warn({ err: error, dir: made }, "could not remove the job's checkout; the next start sweeps it"),
        );
  }
  leaveStage();
  let outcome: RunOutcome;
  try {
    const { ending, checks } = ran;
    const elapsedMs = deps.now() - started;
    const prContext = await context();
    // Review-thread replies and resolves, then the context details, go into the final status comment.
    const after = await deps
      .afterRun?.(req, ending, prContext)
      .catch((error: unknown) => (log.warn({ err: error }, "after-run step failed"), null));
    const inputs = renderRunInputs(
      prContext?.instructions,
      "result" in ending ? ending.result?.instructionFiles : undefined,
      prContext?.images,
    );
    const checkRunId = await checkRunP;
    const published = await transcriptOut.published();
    const notes = [after, prContext?.details, inputs, checkRunNote(), published.line].filter((x): x is string => !!x);
    // The outcome is made here, once, from the phase that ended the run and what the whole run adds; frozen, so no
    // step after this one (report, the driver) can patch it.
    outcome = Object.freeze({
      ...ending,
      elapsedMs,
      ...(checks ? { checks } : {}),
      ...(notes.length ? { context: notes.join("\n\n") } : {}),
    });
    await reportOutcome(req, deps, outcome, checkRunId, (body) => status.final(body), log, published.text);
  } finally {
    await removed;
  }
  log.info({ outcome: outcome.kind, ms: outcome.elapsedMs, ...checksRan(outcome) }, "run finished");
  return outcome;
}

/**
 * The run's Check Run, started while the branch is cloned (nothing before the report needs its id). Not fatal:
 * without it the status comment still tells the whole story. Null from the port means GitHub refused for want of
 * `checks: write`; a throw is any other failure. `checkRunNote` is the status comment's line about either.
 */
function startCheckRun(
  req: RunRequest,
  deps: RunJobDeps,
  log: Logger,
): { checkRunP: Promise<number | null>; checkRunNote(): string | null } {
  const headSha = req.target.kind === "issue" ? null : req.target.headSha;
  let note: string | null = null;
  const checkRunP: Promise<number | null> =
    headSha && req.verb === "run"
      ? deps.github.startCheckRun(headSha).then(
          (id) => {
            if (id === null) note = CHECK_RUN_SKIPPED;
            return id;
          },
          (error: unknown) => {
            log.warn({ err: error }, "check run could not be started");
            note = "ℹ️ The Check Run could not be started (see the app's logs); this comment is the report.";
            return null;
          },
        )
      : Promise.resolve(null);
  return { checkRunP, checkRunNote: () => note };
}

/**
 * The run's transcript, published once. It is whole once the coder has returned, so it is rendered, redacted and
 * stored while GitHub makes the commit (a round trip this process only waits on; `whilePublishing`, started on the
 * next turn of the event loop, once the request is out), not on the report's path after it (~10–30 ms of CPU for a
 * three-round run). `published` gives that result, or publishes now: a run that published nothing, or one whose
 * transcript got an event since.
 */
function transcriptPublisher(
  publish: () => Promise<Published>,
  events: () => number,
): { whilePublishing(): void; published(): Promise<Published> } {
  let early: { events: number; published: Promise<Published | null> } | null = null;
  return {
    whilePublishing() {
      early ??= {
        events: events(),
        published: new Promise((turn) => setImmediate(turn)).then(publish).catch(() => null),
      };
    },
    async published() {
      return (early && early.events === events() ? await early.published : null) ?? (await publish());
    },
  };
}

/**
 * The run's stage as it moves: one name per stage (run-stages.ts) in the log line (with its phase), the status
 * comment and the stage-time metric. `leaveStage` ends the last one when the phases are over.
 */
function trackStages(
  req: RunRequest,
  deps: RunJobDeps,
  log: Logger,
  status: StatusWriter,
): { stage: Stage; leaveStage(): void } {
  let current: { stage: RunStage; since: number } | null = null;
  const leaveStage = () => {
    if (current)
      recordMetric({ type: "run-stage", stage: current.stage, seconds: (deps.now() - current.since) / 1000 });
    current = null;
  };
  const stage: Stage = (s) => {
    if (s === current?.stage) return;
    leaveStage();
    current = { stage: s, since: deps.now() };
    log.info({ stage: s, phase: PHASE_OF_STAGE[s] }, "stage");
    status.stage(deps.render.stage(s, req));
  };
  return { stage, leaveStage };
}

/** What the phases hand back: how the run ended, and the check plan it ran with (null: none was read). */
interface PhasesEnd {
  ending: RunEnding;
  checks: ResolvedChecks | null;
}

async function phases(
  req: RunRequest,
  deps: RunJobDeps,
  dir: string,
  stage: Stage,
  contextOf: () => Promise<PreparedContext | null>,
  transcript: TranscriptRecorder,
  keep: (work: CheckoutWork) => void,
  whilePublishing: () => void,
): Promise<PhasesEnd> {
  const end = (ending: RunEnding, checks: ResolvedChecks | null = null): PhasesEnd => ({ ending, checks });
  // address-reviews / fix-ci read their context first: with nothing to do they stop before cloning, with the reason.
  // A plain run (the context only informs the model) clones while the context is fetched.
  const mayRefuse = req.context !== undefined && req.context.mode.kind !== "plain";
  const context = mayRefuse ? await contextOf() : null;
  if (context?.refuse) return end({ kind: "nothing-to-do", message: context.refuse });
  // The check plan is read (from the default branch) while the branch is cloned; resolveChecks never throws. Asked
  // for once the clone has started, as the context is: building its requests first delayed the fetch.
  let checksP: Promise<ResolvedChecks | null> | null = null;
  const readChecks = () =>
    (checksP ??= req.verb === "run" && deps.checkPlan ? deps.checkPlan(req).catch(() => null) : Promise.resolve(null));
  const prepared = await prepareCheckout(req, deps, dir, stage, () => {
    void contextOf();
    void readChecks();
  });
  // Files still being written: the folder is not removed under git's feet, however the run ends.
  const { pending } = prepared;
  if (pending) keep({ stop: () => undefined, done: pending.written.catch(() => undefined) });
  if (req.verb === "undo") {
    if (req.target.kind === "issue")
      return end({
        kind: "refused",
        message: "`undo` works on pull requests: it reverts the bot's last commit there.",
      });
    stage("pushing");
    return end(
      await undoLastRun({
        req,
        deps,
        dir: prepared.checkout,
        branch: prepared.branch,
        token: prepared.token,
        headSha: baseOf(prepared),
      }),
    );
  }
  const late = context ?? (await contextOf());
  if (late?.refuse) return end({ kind: "nothing-to-do", message: late.refuse });
  // An approved plan runs only on the commit it was made on (triage checked too; someone may have pushed since).
  if (req.plan && baseOf(prepared) !== req.plan.sha) {
    const now = baseOf(prepared);
    return end({
      kind: "refused",
      message: `The branch moved since this plan was made: it was made on \`${req.plan.sha.slice(0, 7)}\` and the head is now \`${now.slice(0, 7)}\` (someone pushed). Nothing was changed; ask for a new plan with \`/aider plan …\`.`,
    });
  }
  const checks = await readChecks();
  const ahead = createCommitAhead(req, deps, prepared);
  const result = await codeOnCheckout(req, deps, prepared, stage, late, transcript, checks, keep, ahead?.port);
  // A commit GitHub was already asked to make is published and reported, even if a stop came meanwhile.
  const sent = ahead?.sent() ?? null;
  const stopped = sent ? null : stopReasonOf(deps.signal);
  if (stopped) return end({ kind: "cancelled", reason: stopped, result }, checks);
  // A checkout that could not be written fails the run as a failed clone always did, whatever the coder made of
  // the files it could not read (an answer may have needed none).
  if (pending) await pending.written;
  // What was sent ahead is the commit made (the offer asked verifyResult the same question on this result).
  const verdict = sent ? ({ kind: "publish", commit: "made" } as const) : verifyResult(req, result);
  if (verdict.kind === "answer" && req.verb === "plan" && result.outcome === "no-changes" && result.answer.trim()) {
    return end({ kind: "planned", result, plan: result.answer, sha: baseOf(prepared) }, checks);
  }
  if (verdict.kind === "answer") return end({ kind: "answered", result }, checks);
  if (verdict.kind === "keep-local") return end({ kind: "not-pushed", result }, checks);
  return end(
    await publishResult(req, deps, prepared, result, verdict.commit, stage, { whilePublishing, keep, ahead: sent }),
    checks,
  );
}
