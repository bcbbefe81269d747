import type { CoderDeps } from "../../coder/coder-deps.js";
import { sumTokens } from "../../coder/run-budget.js";
import { editorMessage } from "../../coder/plan/parse-plan.js";
import type { TranscriptSink } from "../../coder/transcript/transcript-event.js";
import type { TranscriptRecorder } from "../../coder/transcript/transcript-recorder.js";
import type { CoderOptions, CoderResult, CoderStage } from "../../coder/types.js";
import type { RunStage } from "../../run-stages.js";
import { createPlanProgress } from "./plan-progress.js";
import type { RunRequest } from "../run-request.js";
import type { PreparedContext } from "../prepare/prepare-pr-context.js";
import type { PreparedCheckout } from "../prepare/prepare-checkout.js";
import { checkSpecsOf, type ResolvedChecks } from "../prepare/resolve-checks.js";
import type { RunJobDeps, Stage } from "../run-job-deps.js";
import { runTrailers } from "../publish/run-trailers.js";
import { settingsCoderOptions } from "./settings-coder-options.js";
import type { CheckoutWork } from "../checkout-work.js";

export interface CodePhaseInput {
  req: RunRequest;
  /** The run's coder options as the request asks (one step). */
  options: CoderOptions;
  /** One coder run on the checkout, its transcript events to `sink`. */
  run(options: CoderOptions, sink: TranscriptSink): Promise<CoderResult>;
  transcript: TranscriptRecorder;
  /** Tick steps of the approved plan's comment (absent: no live checklist). */
  tick?(done: number[]): Promise<void>;
  onError(error: unknown): void;
}

/**
 * The code phase of a run: one coder run; or, with `edit_format: architect`, Aider's two steps — the main
 * model plans (no edits), the editor model turns the plan into edits — or, for an approved plan, the editor step
 * alone with the plan (and the approver's corrections), its plan comment ticked as the edits apply.
 */
export async function runCodePhase(input: CodePhaseInput): Promise<CoderResult> {
  const { req, options, transcript } = input;
  if (req.plan) {
    const progress = input.tick ? createPlanProgress(req.plan, input.tick, input.onError) : null;
    const sink = transcript.sink("editor");
    const result = await input.run(
      editorOptions(req, options, editorMessage(req.plan.text, req.plan.corrections)),
      (event) => {
        sink(event);
        if (event.kind === "edits") progress?.onEdits(event.written);
      },
    );
    await progress?.finish(result.outcome === "changed");
    return result;
  }
  if (req.verb === "plan") return input.run(options, transcript.sink("architect"));
  if (!(req.settings.architect && req.verb === "run")) return input.run(options, transcript.sink());
  const plan = await input.run({ ...options, askOnly: true, architect: true }, transcript.sink("architect"));
  if (plan.outcome !== "no-changes" || !plan.answer.trim()) return plan;
  const edited = await input.run(editorOptions(req, options, plan.answer), transcript.sink("editor"));
  return withPlanCost(edited, plan);
}

/**
 * The editor's options, as Aider makes its editor coder: the editor model and format, no repo map, none of the
 * planner's conversation or context; the plan is its message (the files it names join the chat).
 */
function editorOptions(req: RunRequest, options: CoderOptions, message: string): CoderOptions {
  const { untrustedContext: _u, prContext: _p, architect: _a, ...rest } = options;
  return {
    ...rest,
    message,
    askOnly: false,
    model: req.settings.editorModel ?? options.model,
    editFormat: req.settings.editorEditFormat ?? options.editFormat,
    mapTokens: 0,
  };
}

/** The editor's result with the planner's tokens, cost and time added (the run's totals). */
function withPlanCost(result: CoderResult, plan: CoderResult): CoderResult {
  const cost = result.costUsd === null && plan.costUsd === null ? null : (result.costUsd ?? 0) + (plan.costUsd ?? 0);
  return {
    ...result,
    tokens: sumTokens(result.tokens, plan.tokens),
    costUsd: cost,
    elapsedMs: result.elapsedMs + plan.elapsedMs,
  };
}

/** The run stage each step of the coder loop shows as (the syntax check is shown with lint, its commit with pushing). */
const STAGE_OF_CODER: Readonly<Record<CoderStage, RunStage>> = {
  mapping: "mapping",
  thinking: "thinking",
  applying: "applying",
  syntax: "lint",
  lint: "lint",
  test: "tests",
  committing: "pushing",
};

/** Phase 2: the coder loop on the checkout (one step, or architect then editor), its progress shown as stages. */
export function codeOnCheckout(
  req: RunRequest,
  deps: RunJobDeps,
  prepared: PreparedCheckout,
  stage: Stage,
  context: PreparedContext | null,
  transcript: TranscriptRecorder,
  checks: ResolvedChecks | null,
  keep?: (work: CheckoutWork) => void,
  publishAhead?: CoderDeps["publishAhead"],
): Promise<CoderResult> {
  const { plan } = req;
  const { tickPlan } = deps.github;
  return runCodePhase({
    req,
    options: coderOptions(req, context, checks),
    run: (options, sink) =>
      deps.coder(prepared.checkout, options, {
        signal: deps.signal,
        onProgress: (p) => stage(STAGE_OF_CODER[p.stage]),
        onTranscript: sink,
        ...(keep ? { keep } : {}),
        ...(prepared.pending ? { pending: prepared.pending } : {}),
        ...(publishAhead ? { publishAhead } : {}),
      }),
    transcript,
    ...(plan && tickPlan ? { tick: (done: number[]) => tickPlan(plan.commentId, done) } : {}),
    onError: (error) => deps.logger.warn({ err: error }, "plan progress update failed"),
  });
}

/** What the coder is given for this request: the settings' part (shared by every driver), files, checks, trailers. */
export function coderOptions(
  req: RunRequest,
  context: PreparedContext | null,
  checks: ResolvedChecks | null,
): CoderOptions {
  const shared = settingsCoderOptions(req.settings, `${req.owner}/${req.repo}`);
  return {
    ...shared,
    // address-reviews / fix-ci build their instruction from the threads or checks; the PR context is data.
    message: context?.message ?? req.message,
    untrustedContext: req.untrustedContext,
    ...(context?.blocks.length ? { prContext: context.blocks } : {}),
    ...(context?.instructions ? { instructions: context.instructions } : {}),
    ...(context?.images ? { images: context.images } : {}),
    files: context ? [...new Set([...req.files, ...context.files])] : req.files,
    ...(context?.hintFiles?.length ? { hintFiles: context.hintFiles } : {}),
    readFiles: [],
    autoTest: shared.autoTest || (context?.autoTest ?? false),
    ...(context?.autoTest ? { reproduceTest: true } : {}),
    ...(checks ? { checkCommands: checkSpecsOf(checks) } : {}),
    askOnly: req.verb === "ask" || req.verb === "plan",
    ...(req.verb === "plan" ? { architect: true } : {}),
    commit: true,
    coAuthor: undefined,
    trailers: runTrailers(req.jobId, req.requester),
  };
}
