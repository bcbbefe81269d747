import type { AppliedEdit, ApplyOutcome, Edit, EditFailure, FileSnapshot } from "./types.js";

/**
 * The state an applier keeps while it applies edits in order: the files as earlier edits left them, the changes
 * to report, what applied and what failed. `write(path, null)` deletes.
 * Example: `const wc = workingCopy(snapshot); wc.write("a.txt", "x\n"); return wc.outcome();`
 */
export function workingCopy(snapshot: FileSnapshot) {
  const files = new Map(snapshot.files);
  const changes = new Map<string, string | null>();
  const applied: AppliedEdit[] = [];
  const failed: EditFailure[] = [];
  return {
    files,
    applied,
    failed,
    write(path: string, content: string | null): void {
      if (content === null) files.delete(path);
      else files.set(path, content);
      changes.set(path, content);
    },
    fail(edit: Edit, reason: EditFailure["reason"], message: string, detail?: string): void {
      failed.push({ path: edit.path, reason, message, edit, ...(detail ? { detail } : {}) });
    },
    outcome: (): ApplyOutcome => ({ changes, applied, failed }),
  };
}
