import type { AppliedEdit, ApplyOutcome, Edit, EditFailure, FileSnapshot } from "../types.js";
import { findElision } from "./find-elision.js";

/** Write whole-file listings; a listing that elides code is refused, never written (AIDER.md A.12). */
export function applyWhole(snapshot: FileSnapshot, edits: readonly Edit[]): ApplyOutcome {
  const changes = new Map<string, string | null>();
  const applied: AppliedEdit[] = [];
  const failed: EditFailure[] = [];
  for (const edit of edits) {
    if (edit.kind !== "whole") {
      failed.push({ path: edit.path, reason: "malformed", message: `A ${edit.kind} edit cannot be applied as a whole-file listing.`, edit });
      continue;
    }
    const line = findElision(edit.content);
    if (line !== null) {
      failed.push({
        path: edit.path,
        reason: "elided",
        message: `The listing of \`${edit.path}\` leaves out code (line ${line}: \`${edit.content.split("\n")[line - 1]!.trim()}\`). Writing it would delete that code. Send the complete file, every line, with nothing elided.`,
        edit,
      });
      continue;
    }
    changes.set(edit.path, edit.content);
    applied.push({ path: edit.path, rung: snapshot.files.has(edit.path) ? "whole" : "create", edit });
  }
  return { changes, applied, failed };
}
