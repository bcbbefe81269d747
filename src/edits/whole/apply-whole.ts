import type { AppliedEdit, ApplyOutcome, Edit, EditFailure, FileSnapshot } from "../types.js";
import { findElision } from "./find-elision.js";

/**
 * Write whole-file listings: each replaces its file (or creates it; folders are implied by the path). A listing
 * that elides code is refused and never written (docs/behaviour.md#whole-file-fixes), unless the "elision" line is really in the file.
 */
export function applyWhole(snapshot: FileSnapshot, edits: readonly Edit[]): ApplyOutcome {
  const changes = new Map<string, string | null>();
  const applied: AppliedEdit[] = [];
  const failed: EditFailure[] = [];
  for (const edit of edits) {
    if (edit.kind !== "whole") {
      failed.push({
        path: edit.path,
        reason: "malformed",
        message: `A ${edit.kind} edit cannot be applied in the whole-file format.`,
        edit,
      });
      continue;
    }
    const current = snapshot.files.get(edit.path);
    const keep = new Set((current ?? "").split("\n").map((l) => l.trim()));
    const elision = findElision(edit.content, keep);
    if (elision) {
      failed.push({
        path: edit.path,
        reason: "elided",
        message:
          `Your listing of \`${edit.path}\` leaves code out: line ${elision.line} is \`${elision.text}\`. ` +
          `A listing replaces the whole file, so writing it would delete the code that comment stands for; the file was not changed. ` +
          `Send the complete file, every line, with nothing elided.`,
        edit,
      });
      continue;
    }
    changes.set(edit.path, edit.content);
    applied.push({ path: edit.path, rung: current === undefined ? "create" : "whole", edit });
  }
  return { changes, applied, failed };
}
