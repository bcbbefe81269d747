import type { CheckReport } from "../checks/types.js";
import type { EditFailure } from "../edits/types.js";
import { filesAddedText, NO_EDITS_TEXT } from "./prompts/shared-text.js";

/**
 * The coder loop's policy as pure functions (docs/behaviour.md#reflection): what a round found, whether to ask the
 * model again and with which text, and what the run's outcome is once it stops. `runCoder` does the I/O and asks
 * these functions what to do; they are table-tested without a model, a repository or a clock.
 */

/** Why the last round asked again; null when the last round ended clean. */
export type Problem =
  | { kind: "edits"; failures: EditFailure[] }
  | { kind: "check"; report: CheckReport }
  | { kind: "no-edits" }
  | { kind: "files-added"; files: string[] };

/** The part of a run's state the decisions read. */
export interface LoopState {
  /** Reflections sent so far (the first request is not one). */
  reflections: number;
  maxReflections: number;
  problem: Problem | null;
  /** The model was already told once that its answer held no edits. */
  noEditsReflected: boolean;
  /** Every path this run has written. */
  edited: ReadonlySet<string>;
}

/** What one round found, once its edits were applied (and checked, when there was something new to check). */
export type RoundReport =
  /** The reply named files the model has not seen: they joined the chat and the model is asked again. */
  | {
      kind: "files-added";
      files: string[];
      wroteFiles: boolean;
      failures: EditFailure[];
      editReflection: string | null;
    }
  | { kind: "edits-failed"; failures: EditFailure[]; reflection: string | null }
  /** No edit failed and nothing written since the last check: nothing new to check. */
  | { kind: "nothing-new" }
  | { kind: "checks-passed" }
  | { kind: "checks-failed"; report: CheckReport; reflection: string };

/** What an applied reply calls for: a report straight away, or the checks first. */
export type AfterApply = RoundReport | { kind: "run-checks" };

/**
 * Classify an applied reply. Files the model asked for win over edit failures (it is asked again with both), edit
 * failures win over checks, and checks run only when something was written since the last check.
 */
export function afterApply(
  applied: { filesAdded: string[]; wroteFiles: boolean; failures: EditFailure[]; reflection: string | null },
  uncheckedEdits: boolean,
): AfterApply {
  if (applied.filesAdded.length > 0) {
    return {
      kind: "files-added",
      files: applied.filesAdded,
      wroteFiles: applied.wroteFiles,
      failures: applied.failures,
      editReflection: applied.reflection,
    };
  }
  if (applied.failures.length > 0)
    return { kind: "edits-failed", failures: applied.failures, reflection: applied.reflection };
  return uncheckedEdits ? { kind: "run-checks" } : { kind: "nothing-new" };
}

export type NextStep = { kind: "ask"; message: string } | { kind: "finish" };

/**
 * After a round: the new state and whether to ask the model again (with the reflection text) or finish. The loop
 * stops when the round left nothing to say, when the model answered twice without edits, or when the reflections
 * are used up; the problem of the last round is kept for `finalOutcome`.
 */
export function decideNext<S extends LoopState>(state: S, round: RoundReport): { state: S; next: NextStep } {
  let problem = state.problem;
  let noEditsReflected = state.noEditsReflected;
  let reflection: string | null = null;
  switch (round.kind) {
    case "files-added":
      reflection = filesAddedText(round.files, round.wroteFiles);
      if (round.editReflection) reflection += `\n\n${round.editReflection}`;
      problem = round.failures.length
        ? { kind: "edits", failures: round.failures }
        : { kind: "files-added", files: round.files };
      break;
    case "edits-failed":
      reflection = round.reflection;
      problem = { kind: "edits", failures: round.failures };
      break;
    case "nothing-new":
      // Say so once; a second answer without edits means the model considers the request done. An earlier
      // edit or check failure stays the problem: the model gave up on it, it was not solved.
      if (!noEditsReflected) reflection = NO_EDITS_TEXT;
      noEditsReflected = true;
      if (problem === null || problem.kind === "files-added") problem = { kind: "no-edits" };
      break;
    case "checks-failed":
      reflection = round.reflection;
      problem = { kind: "check", report: round.report };
      break;
    case "checks-passed":
      problem = null;
      break;
  }
  const next = { ...state, problem, noEditsReflected };
  if (reflection === null || state.reflections >= state.maxReflections)
    return { state: next, next: { kind: "finish" } };
  return { state: { ...next, reflections: state.reflections + 1 }, next: { kind: "ask", message: reflection } };
}

/** How a finished loop ends: with the last round's problem, with nothing to commit, or with a commit. */
export type FinalOutcome =
  | { kind: "edit-failed"; failures: EditFailure[] }
  | { kind: "checks-failed"; report: CheckReport }
  | { kind: "no-changes" }
  | { kind: "commit" };

/**
 * The outcome of a loop that stopped on its own (not by time, budget or an LLM error). Work is committed only
 * when the last round ended clean and something was written; a file the model still wanted to see after edits
 * were made means the edits are unfinished, so they are reported as failed, not committed.
 */
export function finalOutcome(state: Pick<LoopState, "problem" | "edited">): FinalOutcome {
  const { problem } = state;
  if (problem?.kind === "edits") return { kind: "edit-failed", failures: problem.failures };
  if (problem?.kind === "check") return { kind: "checks-failed", report: problem.report };
  if (problem?.kind === "files-added" && state.edited.size > 0) {
    const files = problem.files.join(", ");
    return {
      kind: "edit-failed",
      failures: [
        {
          path: files,
          reason: "file-missing",
          message: `The model asked to see ${files} but no reflections were left to finish the edits.`,
        },
      ],
    };
  }
  if (problem !== null || state.edited.size === 0) return { kind: "no-changes" };
  return { kind: "commit" };
}

/** What a model's reply calls for before any of it is applied. */
export type ReplyVerdict =
  { kind: "truncated" } | { kind: "over-budget"; message: string } | { kind: "answer" } | { kind: "apply" };

/**
 * Judge a reply: a cut-off answer is never applied (its last edit would be half), a spent budget stops the run
 * before anything of the reply is used, and an ask-only run ends with the answer.
 */
export function judgeReply(reply: {
  truncated: boolean;
  budgetProblem: string | null;
  askOnly: boolean;
}): ReplyVerdict {
  if (reply.truncated) return { kind: "truncated" };
  if (reply.budgetProblem) return { kind: "over-budget", message: reply.budgetProblem };
  return reply.askOnly ? { kind: "answer" } : { kind: "apply" };
}
