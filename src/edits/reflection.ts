import type { Edit, EditFailure, Fence } from "./types.js";

const TITLES: Record<EditFailure["reason"], string> = {
  "no-match": "did not match",
  ambiguous: "matched more than one place",
  "missing-filename": "named no file",
  malformed: "was malformed",
  "unsafe-path": "targets a path I may not edit",
  "file-missing": "targets a file that does not exist",
  "file-exists": "creates a file that already exists",
  "already-applied": "is already applied",
  unreadable: "targets a file I cannot edit as text",
  elided: "elides code",
  "no-edits": "is missing",
};

/**
 * The one LLM-facing reflection for an answer: every failed edit with why it failed, the closest real lines, and
 * — when some edits did apply — that those must not be sent again (Aider #4098). Null when nothing failed.
 */
export function renderReflection(failures: readonly EditFailure[], appliedCount: number, fence: Fence = ["```", "```"]): string | null {
  if (failures.length === 0) return null;
  if (failures.every((f) => f.reason === "no-edits")) return failures[0]!.message;
  const n = failures.length;
  const parts: string[] = [`# ${n} edit${n === 1 ? "" : "s"} in your answer could not be applied`];
  for (const f of failures) {
    parts.push(`## The edit to \`${f.path || "(no file)"}\` ${TITLES[f.reason]}`);
    const block = f.edit ? renderEdit(f.edit) : "";
    if (block) parts.push(block);
    parts.push(f.message);
    if (f.detail && f.reason === "no-match") {
      parts.push(`Did you mean to match these actual lines from \`${f.path}\`?\n\n${fence[0]}\n${f.detail}\n${fence[1]}`);
    } else if (f.detail && f.reason !== "ambiguous") {
      parts.push(f.detail);
    }
  }
  if (failures.some((f) => f.reason === "no-match")) {
    parts.push("A SEARCH section must match the file's existing lines exactly — every character, whitespace, comment and docstring — and match only one place.");
  }
  if (appliedCount > 0) {
    parts.push(
      `# The other ${appliedCount} edit${appliedCount === 1 ? " was" : "s were"} applied successfully\nDon't send ${appliedCount === 1 ? "it" : "them"} again. Reply only with fixed versions of the edit${n === 1 ? "" : "s"} that failed.`,
    );
  }
  return parts.join("\n\n");
}

function renderEdit(edit: Edit): string {
  if (edit.kind === "replace") return `${edit.path}\n<<<<<<< SEARCH\n${edit.search}=======\n${edit.replace}>>>>>>> REPLACE`;
  return "";
}

/** A short Markdown summary of failures for people (status comments, CLI output). */
export function summarizeFailures(failures: readonly EditFailure[]): string {
  return failures.map((f) => `- \`${f.path || "(no file)"}\`: ${f.message}`).join("\n");
}
