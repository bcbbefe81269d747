import type { CheckReport } from "../checks/types.js";
import { installError, setupMayFail } from "./check-commands.js";
import type { CheckCommandSpec, CheckRunRecord } from "./types.js";

/** Why a Python project runner is not there, as its install's record says (set in this round or an earlier one). */
export function runnerTrouble(records: Iterable<CheckRunRecord> | undefined, runner: string): string | undefined {
  for (const r of records ?? [])
    if (r.kind === "setup" && r.installsRunners?.includes(runner) && r.status !== "passed" && r.note) return r.note;
  return undefined;
}

/**
 * What a failed command's record says when its failure leaves the run going (pure), or null: a setup line for a
 * Python project runner that could not be installed or run while a check has a stand-in for it, or a lint or test
 * command whose runner is missing with nothing to stand in. Either could not run; neither is the change's doing.
 */
export function goesOnNote(
  spec: CheckCommandSpec,
  report: CheckReport,
  specs: readonly CheckCommandSpec[],
  records: Iterable<CheckRunRecord> | undefined,
): string | null {
  if (spec.kind === "setup") {
    if (!setupMayFail(spec, report, specs)) return null;
    const runners = spec.installsRunners?.map((r) => `\`${r}\``).join(", ");
    return runners
      ? `${runners} could not be installed: ${installError(report.output)}`
      : (report.runnerMissing ?? "its runner is missing");
  }
  if (!report.runnerMissing) return null;
  const trouble = spec.fallback ? runnerTrouble(records, spec.fallback.runner) : undefined;
  // The install's error says why the runner is not there; what follows says what could not stand in.
  return trouble
    ? `${trouble}; ${report.runnerMissing.replace(/^`[^`]+` is not installed here \([^)]*\), and /, "")}`
    : report.runnerMissing;
}

/** A stand-in's report as its record's `ranInstead`: what ran, and why the repository's command could not. */
export function ranInsteadOf(
  report: CheckReport,
  records: Iterable<CheckRunRecord> | undefined,
): Pick<CheckRunRecord, "ranInstead"> {
  if (!report.standIn) return {};
  return {
    ranInstead: { command: report.command, why: runnerTrouble(records, report.standIn.runner) ?? report.standIn.why },
  };
}
