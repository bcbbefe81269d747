import { failingTests, type FailingTests } from "./failing-tests.js";
import { failureLine, normaliseOutput } from "./normalise-output.js";

/** What one command did on the base (the commit the change starts from), kept to compare a failure with. */
export interface BaselineResult {
  ok: boolean;
  exitCode: number | null;
  /** The command could not run or judge anything (not installed, could not start, a setup step's timeout). */
  environmentError?: boolean;
  /** The failing tests the output names (null: none named). */
  failing: FailingTests | null;
  /** The output, normalised (see normaliseOutput), when it failed. */
  normalised: string;
  /** The line that says what went wrong, for the status. */
  summary: string;
}

/** A command's result on the base, from its report (pure). `roots`: the checkout folders, removed from the text. */
export function baselineOf(
  report: { ok: boolean; exitCode?: number | null; environmentError?: boolean; output: string },
  roots: readonly string[],
): BaselineResult {
  return {
    ok: report.ok,
    exitCode: report.exitCode ?? null,
    ...(report.environmentError ? { environmentError: true } : {}),
    failing: report.ok ? null : failingTests(report.output),
    normalised: report.ok ? "" : normaliseOutput(report.output, roots),
    summary: report.ok ? "" : failureLine(report.output),
  };
}

export type BaselineVerdict =
  /** The base did not fail (or was not run): the failure is the change's, reflected as always. */
  | { kind: "new" }
  /** The base failed the same way: the environment's or the base's, not the change's. */
  | { kind: "pre-existing"; summary: string; tests: string[] }
  /** Some failing tests are new, others failed on the base too (listed, so the model leaves them be). */
  | { kind: "partly"; added: string[]; preExisting: string[] };

/**
 * Whether a failure of the change is one the base already had (pure). By failing test names when both outputs name
 * them: none new, failing with the same errors → pre-existing; some new → partly (the new ones are the change's to
 * fix, its own new tests included). Else by normalised output: the same text (or nearly: the same error lines and
 * ≥ 90 % of all lines shared both ways) → pre-existing. A base that named tests while the change names none (or the reverse) failed differently → new.
 */
export function compareWithBaseline(
  head: { ok: boolean; exitCode?: number | null; output: string },
  base: BaselineResult | null,
  roots: readonly string[],
): BaselineVerdict {
  if (head.ok || !base || base.ok) return { kind: "new" };
  const failing = failingTests(head.output);
  const text = normaliseOutput(head.output, roots);
  if (failing && base.failing) {
    const before = new Set(base.failing.names);
    const added = failing.names.filter((n) => !before.has(n));
    const preExisting = failing.names.filter((n) => before.has(n));
    // The same tests failing with other errors (`6 != 5` where the base said `-1 != 5`) is the change at work on
    // a test that already failed, often the very one the request is about: the change's to finish.
    if (!added.length && sameErrors(text, base.normalised))
      return { kind: "pre-existing", summary: summaryOf(preExisting, base), tests: preExisting };
    return preExisting.length && added.length ? { kind: "partly", added, preExisting } : { kind: "new" };
  }
  if (failing || base.failing) return { kind: "new" };
  return sameText(text, base.normalised) ? { kind: "pre-existing", summary: base.summary, tests: [] } : { kind: "new" };
}

/** Lines that say what went wrong (an assertion, an error, a panic): those of the change all in the base's output. */
function sameErrors(head: string, base: string): boolean {
  const errorLine = /error|assert|expected|received|panic|!==?|\bfail/i;
  const before = new Set(base.split("\n"));
  return head.split("\n").every((l) => !errorLine.test(l) || before.has(l));
}

function summaryOf(tests: readonly string[], base: BaselineResult): string {
  if (!tests.length) return base.summary;
  const shown = tests.slice(0, 3).join(", ");
  return `${tests.length} failing test${tests.length === 1 ? "" : "s"}: ${shown}${tests.length > 3 ? ", …" : ""}`;
}

function sameText(a: string, b: string): boolean {
  if (a === b) return true;
  if (!sameErrors(a, b) || !sameErrors(b, a)) return false;
  const la = new Set(a.split("\n"));
  const lb = new Set(b.split("\n"));
  if (!la.size || !lb.size) return false;
  const shared = [...la].filter((l) => lb.has(l)).length;
  return shared / la.size >= 0.9 && shared / lb.size >= 0.9;
}
