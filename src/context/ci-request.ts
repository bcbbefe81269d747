import { fail, ok, type Result } from "../result.js";
import type { FailingCheckRun } from "./pr-data.js";
import { sanitiseText } from "./sanitise-text.js";

/**
 * The instruction for `/aider fix-ci` and for an automatic CI fix (pure). Check names and annotation paths are
 * written by the repository's workflows, so they are sanitised and quoted; the summaries, annotations and log tails
 * go in as untrusted data (the "Failing checks" context block).
 */
export function fixCiRequest(
  checks: readonly FailingCheckRun[],
  extra: string,
  testCommand?: string,
): Result<string, "no-failing-check"> {
  if (checks.length === 0)
    return fail("no-failing-check", "No check of the head commit has failed, so there is nothing to fix.");
  const names = checks.map(
    (c) =>
      `- "${sanitiseText(c.name, { note: false }).text.replace(/\s+/g, " ").slice(0, 100)}" (${c.conclusion}${c.annotations.length ? `, ${c.annotations.length} annotation${c.annotations.length === 1 ? "" : "s"}` : ""})`,
  );
  const paths = [...new Set(checks.flatMap((c) => c.annotations.map((a) => a.path)))].slice(0, 20);
  return ok(
    [
      `These checks fail on the head commit of this pull request:`,
      ...names,
      "",
      `Their output, annotations and log tails are in the "Failing checks" data block. Find the cause and fix the code (not the checks or the CI configuration). Keep the change as small as the fix needs.`,
      paths.length ? `Annotated files: ${paths.map((p) => `\`${p}\``).join(", ")}.` : "",
      testCommand ? `The repository's test command \`${testCommand}\` runs after your edit; make it pass.` : "",
      extra.trim() ? `\nAdditional instruction from the maintainer:\n${sanitiseText(extra).text}` : "",
    ]
      .filter((l, i, all) => l !== "" || all[i - 1] !== "")
      .join("\n")
      .trim(),
  );
}
