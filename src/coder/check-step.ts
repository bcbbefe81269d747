import { checkCommandsOf } from "./check-commands.js";
import type { CoderRun, Step } from "./coder-session.js";
import { commitContext } from "./commit-run.js";
import { closeRound } from "./close-round.js";
import { startEarlySubject } from "./early-subject.js";
import { runChecks } from "./check-sequence.js";
import { editedContents, editedStats, resultBase } from "./run-result.js";
import type { CoderOptions, CoderResult } from "./types.js";

/** Syntax, setup, lint and test over the files this run edited that still exist. */
export async function checkRound(run: CoderRun, deleted: readonly string[]): Promise<Step | CoderResult> {
  const { options, deps, state } = run;
  const existing = [...state.edited].filter((p) => !deleted.includes(p) && state.chatFiles.includes(p));
  // While the repository's commands run, the model writes the subject of the commit that follows if they pass.
  const early =
    runsCommands(options) && options.commit
      ? startEarlySubject(deps, state.original, await editedContents(run), commitContext(options, state.explanation))
      : null;
  const checks = await runChecks({
    deps,
    options,
    files: existing,
    // Created (no original), gone, or written: what an early setup's inputs are checked against.
    changed: [...state.edited].map((path) => ({
      path,
      ...(state.original.get(path) === null ? { created: true } : {}),
      ...(existing.includes(path) ? {} : { deleted: true }),
    })),
    round: state.round,
    setupDone: state.setupDone,
    record: state.checkRuns,
    original: state.original,
  });
  state.setupDone = checks.setupDone;
  state.uncheckedEdits = false;
  const result = checks.result;
  if (result.kind === "ok" && result.skipped) state.checksSkipped = result.skipped;
  let next: Step | CoderResult;
  if (result.kind === "setup-failed") {
    next = { ...resultBase(run), outcome: "checks-failed", report: result.report, editedFiles: await editedStats(run) };
  } else if (result.kind === "ok") {
    next = await closeRound(run, { kind: "checks-passed" });
  } else {
    const reflection = deps.renderCheckReflection(result.report, existing);
    next = await closeRound(run, { kind: "checks-failed", report: result.report, reflection });
  }
  // Kept only for the commit it was asked for; any other way on, its call is stopped.
  if ("kind" in next && next.kind === "commit") run.early = early;
  else early?.abort();
  return next;
}

/** Whether a round's checks run repository commands (lint, test), which take long enough to write a subject in. */
function runsCommands(options: CoderOptions): boolean {
  return checkCommandsOf(options).some((c) => c.kind !== "setup");
}
