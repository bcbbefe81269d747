import type { Edit, EditFailure, FailureReason, Fence } from "./types.js";

/** Why an edit failed, as the heading of its section. */
const TITLES: Record<FailureReason, string> = {
  "no-match": "did not match the file",
  ambiguous: "matched more than one place",
  "missing-filename": "names no file",
  malformed: "is malformed",
  "unsafe-path": "targets a path that may not be edited",
  "file-missing": "targets a file that does not exist",
  "file-exists": "creates a file that already exists",
  "already-applied": "seems to be applied already",
  unreadable: "targets a file that cannot be edited as text",
  elided: "leaves out code",
  "over-limit": "goes over what one answer may change",
  "no-edits": "is missing",
};

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

/**
 * The one LLM-facing reflection for an answer (shaped like Aider's, docs/behaviour.md#failed-edits, in our words): each failed
 * edit with why, the closest real lines, that REPLACE is already there, the places of an ambiguous match; then how
 * many edits did apply and that they must not be sent again (Aider #4098). Format-agnostic: formats put their
 * specifics in `message` and `detail`. Null when nothing failed.
 * `renderReflection([], 3, ["```", "```"]) === null`
 */
export function renderReflection(
  failures: readonly EditFailure[],
  appliedCount: number,
  fence: Fence = ["```", "```"],
): string | null {
  const [first] = failures;
  if (!first) return null;
  const real = failures.filter((f) => f.reason !== "no-edits");
  if (real.length === 0) return first.message;
  const n = real.length;
  const parts: string[] = [`# ${n} ${plural(n, "edit", "edits")} in your answer failed`];
  for (const f of real) parts.push(renderFailure(f, fence));
  // The SEARCH rule only makes sense for SEARCH/REPLACE blocks; udiff and patch failures carry their own advice.
  if (real.some((f) => (f.reason === "no-match" || f.reason === "ambiguous") && f.edit?.kind === "replace")) {
    parts.push(
      "A SEARCH section must match existing lines of the file exactly — every character, including whitespace, indentation, comments and docstrings — and it must match only one place.",
    );
  }
  if (appliedCount > 0) {
    parts.push(
      [
        `# The other ${appliedCount} ${plural(appliedCount, "edit was", "edits were")} applied successfully`,
        `Don't send ${plural(appliedCount, "it", "them")} again: ${plural(appliedCount, "it is", "they are")} already in the files.`,
        `Reply only with fixed versions of the ${plural(n, "edit", "edits")} that failed.`,
      ].join("\n"),
    );
  }
  return parts.join("\n\n");
}

function renderFailure(f: EditFailure, fence: Fence): string {
  const where = f.path ? ` to \`${f.path}\`` : "";
  const out = [`## An edit${where} ${TITLES[f.reason]}`];
  const block = f.edit ? renderEdit(f.edit) : "";
  if (block) out.push(block);
  out.push(f.message);
  if (f.reason === "no-match" && f.detail) {
    out.push(`Did you mean to match these actual lines from \`${f.path}\`?\n\n${fence[0]}\n${f.detail}\n${fence[1]}`);
  } else if (f.reason === "already-applied") {
    const what = f.edit?.kind === "replace" ? "Its REPLACE text" : "Its result";
    out.push(`Are you sure this edit is needed? ${what} is already in \`${f.path}\`.`);
  } else if (f.detail && f.reason !== "ambiguous") {
    out.push(f.detail);
  }
  return out.join("\n\n");
}

/** The failed block as the model wrote it, so it can tell which one is meant; other formats explain in `message`. */
function renderEdit(edit: Edit): string {
  if (edit.kind !== "replace") return "";
  return `${edit.path}\n<<<<<<< SEARCH\n${edit.search}=======\n${edit.replace}>>>>>>> REPLACE`;
}

/**
 * A short Markdown list of failures for people (status comments, CLI output).
 * `summarizeFailures([{ path: "a.py", reason: "no-match", message: "…" }]) → "- `a.py` (no match): …"`
 */
export function summarizeFailures(failures: readonly EditFailure[]): string {
  return failures
    .map((f) => `- \`${f.path || "(no file)"}\` (${f.reason.replace(/-/g, " ")}): ${f.message}`)
    .join("\n");
}
