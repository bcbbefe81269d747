import { createHash, randomBytes } from "node:crypto";
import { failingTests, type TestRunner } from "./failing-tests.js";
import { failureLine, normaliseOutput } from "./normalise-output.js";

/**
 * What one command did on the base (the commit the change starts from), kept to compare a failure with. It holds no
 * text of the command's output: a base run's output can hold whatever the repository's commands print (a secret an
 * environment leaks, a file's content), and this result is kept on disk. The failing tests' names and the normalised
 * output's lines are kept as salted hashes, which is all the comparison needs; the status's words about the failure
 * come from the change's own output, which failed the same way.
 */
export interface BaselineResult {
  ok: boolean;
  exitCode: number | null;
  /** The command could not run or judge anything (not installed, could not start, a setup step's timeout). */
  environmentError?: boolean;
  /** The salt of every hash below (random per result: equal lines of two results do not hash alike). */
  salt: string;
  /** The failing tests the output names, each name hashed (null: none named, or the command passed). */
  failing: { runner: TestRunner; names: string[] } | null;
  /** The normalised output (see normaliseOutput) when it failed: the whole text's hash, its lines', its error lines'. */
  output: { text: string; lines: string[]; errors: string[] } | null;
}

/** A line that says what went wrong (an assertion, an error, a panic). */
const ERROR_LINE = /error|assert|expected|received|panic|!==?|\bfail/i;

/** A salted hash, 64 bits: collisions among a command's few thousand lines are out of reach. */
function hashOf(salt: string, text: string): string {
  return createHash("sha256").update(salt).update("\0").update(text).digest("hex").slice(0, 16);
}

/**
 * A command's result on the base, from its report (pure but for the random salt). `roots`: the checkout folders,
 * removed from the text before it is hashed.
 */
export function baselineOf(
  report: { ok: boolean; exitCode?: number | null; environmentError?: boolean; output: string },
  roots: readonly string[],
  salt: string = randomBytes(8).toString("hex"),
): BaselineResult {
  const base = {
    ok: report.ok,
    exitCode: report.exitCode ?? null,
    ...(report.environmentError ? { environmentError: true } : {}),
    salt,
  };
  if (report.ok) return { ...base, failing: null, output: null };
  const failing = failingTests(report.output);
  const text = normaliseOutput(report.output, roots);
  const lines = [...new Set(text.split("\n"))];
  return {
    ...base,
    failing: failing ? { runner: failing.runner, names: failing.names.map((n) => hashOf(salt, n)) } : null,
    output: {
      text: hashOf(salt, text),
      lines: lines.map((l) => hashOf(salt, l)),
      errors: lines.filter((l) => ERROR_LINE.test(l)).map((l) => hashOf(salt, l)),
    },
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
 * ≥ 90 % of all lines shared both ways) → pre-existing. A base that named tests while the change names none (or the
 * reverse) failed differently → new. The summary is the change's own failure line (the base's text is not kept).
 */
export function compareWithBaseline(
  head: { ok: boolean; exitCode?: number | null; output: string },
  base: BaselineResult | null,
  roots: readonly string[],
): BaselineVerdict {
  if (head.ok || !base || base.ok || !base.output) return { kind: "new" };
  const hash = (s: string) => hashOf(base.salt, s);
  const failing = failingTests(head.output);
  const text = normaliseOutput(head.output, roots);
  const lines = [...new Set(text.split("\n"))];
  const baseLines = new Set(base.output.lines);
  // Every line of the change's that says what went wrong, the base's output has too.
  const sameErrors = lines.every((l) => !ERROR_LINE.test(l) || baseLines.has(hash(l)));
  if (failing && base.failing) {
    const before = new Set(base.failing.names);
    const added = failing.names.filter((n) => !before.has(hash(n)));
    const preExisting = failing.names.filter((n) => before.has(hash(n)));
    // The same tests failing with other errors (`6 != 5` where the base said `-1 != 5`) is the change at work on
    // a test that already failed, often the very one the request is about: the change's to finish.
    if (!added.length && sameErrors)
      return { kind: "pre-existing", summary: summaryOf(preExisting, head.output), tests: preExisting };
    return preExisting.length && added.length ? { kind: "partly", added, preExisting } : { kind: "new" };
  }
  if (failing || base.failing) return { kind: "new" };
  return hash(text) === base.output.text || nearlySame(lines, sameErrors, base.output, hash)
    ? { kind: "pre-existing", summary: failureLine(head.output), tests: [] }
    : { kind: "new" };
}

/**
 * The same error lines both ways, and ≥ 90 % of the lines shared both ways: of all lines, or of the lines from each
 * side's first error line on. What a build or an install printed before the failure (bundle sizes, a compiler's list
 * of files) changes with the code while the failure that follows is the same.
 */
function nearlySame(
  lines: readonly string[],
  sameErrors: boolean,
  base: NonNullable<BaselineResult["output"]>,
  hash: (s: string) => string,
): boolean {
  if (!sameErrors) return false;
  const hashed = lines.map(hash);
  if (!base.errors.every((h) => hashed.includes(h))) return false;
  const errors = new Set(base.errors);
  const fromFirstError = (hs: readonly string[]) =>
    hs.slice(
      Math.max(
        0,
        hs.findIndex((h) => errors.has(h)),
      ),
    );
  return (
    mostlyShared(hashed, base.lines) ||
    (errors.size > 0 && mostlyShared(fromFirstError(hashed), fromFirstError(base.lines)))
  );
}

/** ≥ 90 % of each side's distinct lines are the other's too. */
function mostlyShared(a: readonly string[], b: readonly string[]): boolean {
  const mine = new Set(a);
  const theirs = new Set(b);
  if (!mine.size || !theirs.size) return false;
  const shared = [...mine].filter((h) => theirs.has(h)).length;
  return shared / mine.size >= 0.9 && shared / theirs.size >= 0.9;
}

function summaryOf(tests: readonly string[], output: string): string {
  if (!tests.length) return failureLine(output);
  const shown = tests.slice(0, 3).join(", ");
  return `${tests.length} failing test${tests.length === 1 ? "" : "s"}: ${shown}${tests.length > 3 ? ", …" : ""}`;
}

/** Whether a value read back (a cache file) has the shape of a {@link BaselineResult}. */
export function isBaselineResult(v: unknown): v is BaselineResult {
  if (!v || typeof v !== "object") return false;
  const r = v as Record<string, unknown>;
  const hashes = (x: unknown) => Array.isArray(x) && x.every((h) => typeof h === "string" && /^[0-9a-f]{16}$/.test(h));
  const failing = r.failing as Record<string, unknown> | null | undefined;
  const output = r.output as Record<string, unknown> | null | undefined;
  return (
    typeof r.ok === "boolean" &&
    (r.exitCode === null || typeof r.exitCode === "number") &&
    (r.environmentError === undefined || r.environmentError === true) &&
    typeof r.salt === "string" &&
    /^[0-9a-f]{16}$/.test(r.salt) &&
    (failing === null ||
      (typeof failing === "object" && typeof failing.runner === "string" && hashes(failing.names))) &&
    (output === null ||
      (typeof output === "object" &&
        typeof output.text === "string" &&
        /^[0-9a-f]{16}$/.test(output.text) &&
        hashes(output.lines) &&
        hashes(output.errors))) &&
    // Nothing else: a file with a field this version does not write (an older one's raw output) is not read.
    Object.keys(r).every((k) => ["ok", "exitCode", "environmentError", "salt", "failing", "output"].includes(k))
  );
}
