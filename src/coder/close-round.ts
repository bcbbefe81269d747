import type { CoderRun, Step } from "./coder-session.js";
import { decideNext, finalOutcome, type RoundReport } from "./loop-decisions.js";
import { editedStats, noChanges, resultBase } from "./run-result.js";
import type { CoderResult } from "./types.js";

/** Ask again, or end the loop with its final outcome. */
export async function closeRound(run: CoderRun, round: RoundReport): Promise<Step | CoderResult> {
  const decision = decideNext(run.state, round);
  run.state = decision.state;
  if (decision.next.kind === "ask") return decision.next;
  const final = finalOutcome(run.state);
  switch (final.kind) {
    case "commit":
      return { kind: "commit" };
    case "no-changes":
      return noChanges(run);
    case "edit-failed":
      return {
        ...resultBase(run),
        outcome: "edit-failed",
        failures: final.failures,
        editedFiles: await editedStats(run),
      };
    case "checks-failed":
      return {
        ...resultBase(run),
        outcome: "checks-failed",
        report: final.report,
        editedFiles: await editedStats(run),
      };
  }
}
