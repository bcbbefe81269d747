import type { CheckRunRecord, CoderResult } from "./types.js";

/** A lint or test command that judged the change: it passed, failed, or ran tests that failed on the base too. */
export const judged = (r: CheckRunRecord): boolean =>
  r.kind !== "setup" &&
  (r.status === "passed" || r.status === "failed" || (r.status === "pre-existing" && !!r.testsRan));

/**
 * Why a change the repository has checks for was not checked by any of them (pure), or null when one judged it or
 * the repository has none: the sandbox could not run here, or every lint and test command failed on the base the
 * same way (a broken environment or base). Such a change is pushed only where `require_green_checks` allows.
 */
export function uncheckedReason(result: CoderResult): string | null {
  if (result.outcome !== "changed" || !result.editedFiles.length) return null;
  const runs = result.checkRuns ?? [];
  const commands = runs.filter((r) => r.kind !== "setup");
  if (!commands.length || commands.some(judged)) return null;
  if (result.checksSkipped) return `the repository's commands were not run: ${result.checksSkipped}`;
  const base = commands.find((r) => r.status === "pre-existing");
  if (base) return `\`${base.command}\` fails on the default branch too (${base.onBase ?? "the same failure"})`;
  // No command could run (a Python project runner missing, nothing to stand in): none judged the change.
  const stuck = commands.filter((r) => r.status === "could-not-run" || r.status === "tool-missing");
  if (stuck.length === commands.length)
    return `none of the repository's lint and test commands could run here (\`${stuck[0]!.command}\`: ${stuck[0]!.note ?? "could not run"})`;
  return null;
}
