import type { AppliedEdit, ApplyOptions, ApplyOutcome, Edit, EditFailure, FileSnapshot } from "../types.js";
import { crossFileRetry } from "./cross-file-retry.js";
import { splitLines } from "../match/split-lines.js";
import { editFailure, replaceAlreadyThere } from "./edit-failure.js";
import { replaceBlock } from "./replace-block.js";

/**
 * Apply SEARCH/REPLACE edits in order, each against the files as earlier edits left them (LF text in, LF text out;
 * `applyEdits` handles line endings and path policy). Fails rather than guesses: an ambiguous match, or a
 * cross-file match in several files, is a failure (docs/behaviour.md#ambiguous-matches-are-refused, docs/behaviour.md#deterministic-cross-file-retry).
 */
export function applyEditBlocks(snapshot: FileSnapshot, edits: readonly Edit[], options: ApplyOptions): ApplyOutcome {
  const files = new Map(snapshot.files);
  const changes = new Map<string, string | null>();
  const applied: AppliedEdit[] = [];
  const failed: EditFailure[] = [];
  const write = (path: string, content: string) => {
    files.set(path, content);
    changes.set(path, content);
  };
  const fuzzy = options.fuzzy === true;
  for (const edit of edits) {
    if (edit.kind !== "replace") {
      failed.push({
        path: edit.path,
        reason: "malformed",
        message: `A ${edit.kind} edit cannot be applied as SEARCH/REPLACE.`,
        edit,
      });
      continue;
    }
    const content = files.get(edit.path);
    if (edit.search.trim() === "") {
      // Empty SEARCH creates or appends, and never falls back to another file (Aider #2258). A file that lacks a
      // final newline gets one first, so the appended text does not glue onto its last line (docs/behaviour.md#newlines-and-line-endings).
      if (content === undefined) {
        write(edit.path, edit.replace);
        applied.push({ path: edit.path, rung: "create", edit });
      } else {
        write(edit.path, (content === "" || content.endsWith("\n") ? content : `${content}\n`) + edit.replace);
        applied.push({ path: edit.path, rung: "append", edit });
      }
      continue;
    }
    const here = content === undefined ? null : replaceBlock(content, edit, fuzzy);
    if (here?.kind === "ok") {
      write(edit.path, here.content);
      applied.push({ path: edit.path, rung: here.rung, edit });
      continue;
    }
    if (here?.kind === "ambiguous") {
      failed.push(editFailure({ kind: "ambiguous", edit, lines: here.lines }));
      continue;
    }
    // A named file that already holds REPLACE is "already applied", never a reason to edit another file: the model
    // re-sent a block that did apply (Aider #4098), and SEARCH matching elsewhere is a coincidence.
    if (content !== undefined && replaceAlreadyThere(splitLines(content), edit)) {
      failed.push(editFailure({ kind: "no-match", edit, content, elsewhere: [] }));
      continue;
    }
    const other = crossFileRetry(files, edit, options.chatFiles, fuzzy);
    if (other.kind === "one") {
      write(other.path, other.content);
      applied.push({ path: other.path, rung: `cross-file:${edit.path}`, edit });
      continue;
    }
    failed.push(
      editFailure({ kind: "no-match", edit, content, elsewhere: other.kind === "several" ? other.paths : [] }),
    );
  }
  return { changes, applied, failed };
}
