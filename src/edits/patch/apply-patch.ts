import type { ApplyOutcome, Edit, FileSnapshot } from "../types.js";
import { workingCopy } from "../working-copy.js";
import { applyUpdate } from "./apply-update.js";

/**
 * Apply V4A operations in order over a working copy: Add File creates (and fails `file-exists` when the file is
 * there — Aider's Add File always failed that way, docs/behaviour.md#aider-bugs-we-avoid (#12)), Delete File deletes, Update File patches and
 * with `*** Move to:` writes the new path and deletes the old one (`null` in `changes`). Each operation succeeds or
 * fails alone; Aider stopped at the first error.
 */
export function applyPatch(snapshot: FileSnapshot, edits: readonly Edit[]): ApplyOutcome {
  const { files, applied, write, fail, outcome } = workingCopy(snapshot);

  for (const edit of edits) {
    const current = files.get(edit.path);
    if (edit.kind === "patch-add") {
      if (current !== undefined && current !== edit.content) {
        fail(
          edit,
          "file-exists",
          `\`*** Add File: ${edit.path}\` failed: that file already exists. Use \`*** Update File: ${edit.path}\` to change it.`,
        );
      } else {
        write(edit.path, edit.content);
        applied.push({ path: edit.path, rung: "create", edit });
      }
    } else if (edit.kind === "patch-delete") {
      if (current === undefined)
        fail(edit, "file-missing", `\`*** Delete File: ${edit.path}\` failed: that file does not exist.`);
      else {
        write(edit.path, null);
        applied.push({ path: edit.path, rung: "delete", edit });
      }
    } else if (edit.kind === "patch-update") {
      if (current === undefined) {
        fail(
          edit,
          "file-missing",
          `\`*** Update File: ${edit.path}\` failed: that file does not exist. Use \`*** Add File: ${edit.path}\` to create it.`,
        );
        continue;
      }
      const { moveTo } = edit;
      const moving = moveTo !== undefined && moveTo !== edit.path;
      if (moving && files.has(moveTo)) {
        fail(edit, "file-exists", `\`*** Move to: ${moveTo}\` failed: that file already exists.`);
        continue;
      }
      const result = applyUpdate(current, edit.body, edit.path);
      if (!result.ok) {
        fail(edit, result.reason, result.message, result.detail);
        continue;
      }
      if (moving) write(edit.path, null);
      write(edit.moveTo ?? edit.path, result.value.content);
      applied.push({ path: edit.moveTo ?? edit.path, rung: moving ? "move" : result.value.rung, edit });
    } else {
      fail(edit, "malformed", `A ${edit.kind} edit cannot be applied in the patch format.`);
    }
  }
  return outcome();
}
