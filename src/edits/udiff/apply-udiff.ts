import { joinLines, splitLines } from "../match/split-lines.js";
import { findSimilarLines } from "../find-similar-lines.js";
import type { ApplyOptions, ApplyOutcome, Edit, FileSnapshot, Fence } from "../types.js";
import { workingCopy } from "../working-copy.js";
import { applyHunk } from "./apply-hunk.js";
import { hasChange, hunkSides, normalizeHunk } from "./hunk-lines.js";
import { placeHunk } from "./place-hunk.js";

const fenced = (lines: readonly string[], fence: Fence) => `${fence[0]}\n${joinLines(lines)}${fence[1]}`;

/**
 * Apply udiff edits in order over a working copy of the files: hunks (`udiff`), new files (`patch-add`, from
 * `--- /dev/null`) and deletions (`patch-delete`, from `+++ /dev/null`). A hunk with no `-` and only blank context
 * creates the file or appends to it (Aider's rule). Each hunk succeeds or fails on its own, so partial success is
 * reported exactly: the failures name the hunks that did not apply, `applied` lists the ones that did (Aider never
 * said so, #5573).
 */
export function applyUdiff(
  snapshot: FileSnapshot,
  edits: readonly Edit[],
  options: Pick<ApplyOptions, "fence"> = {},
): ApplyOutcome {
  const fence = options.fence ?? ["```", "```"];
  const { files, applied, write, fail, outcome } = workingCopy(snapshot);

  for (const edit of edits) {
    const content = files.get(edit.path);
    if (edit.kind === "patch-delete") {
      if (content === undefined)
        fail(edit, "file-missing", `\`${edit.path}\` cannot be deleted (\`+++ /dev/null\`): it does not exist.`);
      else {
        write(edit.path, null);
        applied.push({ path: edit.path, rung: "delete", edit });
      }
      continue;
    }
    if (edit.kind === "patch-add") {
      if (content !== undefined && content !== edit.content) {
        fail(
          edit,
          "file-exists",
          `\`${edit.path}\` already exists, so a diff from \`--- /dev/null\` cannot create it. Diff against its current content instead.`,
        );
      } else {
        write(edit.path, edit.content);
        applied.push({ path: edit.path, rung: "create", edit });
      }
      continue;
    }
    if (edit.kind !== "udiff") {
      fail(edit, "malformed", `A ${edit.kind} edit cannot be applied in the udiff format.`);
      continue;
    }
    const hunk = normalizeHunk(edit.hunk);
    if (!hasChange(hunk)) continue; // a hunk that changes nothing is skipped, as Aider does
    const { before, after } = hunkSides(hunk);
    if (before.every((l) => l.trim() === "")) {
      const base = content === undefined || content === "" || content.endsWith("\n") ? (content ?? "") : `${content}\n`;
      write(edit.path, base + joinLines(after));
      applied.push({ path: edit.path, rung: content === undefined ? "create" : "append", edit });
      continue;
    }
    if (content === undefined) {
      fail(
        edit,
        "file-missing",
        `\`${edit.path}\` does not exist. To create a file, diff it from \`--- /dev/null\` with only \`+\` lines.`,
      );
      continue;
    }
    const file = splitLines(content);
    const result = applyHunk(file, hunk);
    if (result.kind === "ok") {
      write(edit.path, joinLines(result.lines));
      applied.push({ path: edit.path, rung: result.rung, edit });
    } else if (result.kind === "ambiguous") {
      fail(
        edit,
        "ambiguous",
        `\`${edit.path}\` contains ${result.at.length} places that match this hunk (starting at lines ${result.at.join(", ")}), so it was not applied. ` +
          `A hunk must match exactly one place: add unchanged lines around the change, prefixed with a space, until it does.\n\n` +
          `The ${before.length} line${before.length === 1 ? "" : "s"} that matched more than once:\n${fenced(before, fence)}`,
      );
    } else if (
      hunk.some((l) => l.op === "+" && l.text.trim() !== "") &&
      placeHunk(
        file,
        after.map((text) => ({ op: " ", text })),
      ).kind === "ok"
    ) {
      fail(
        edit,
        "already-applied",
        `The lines this hunk would produce are already in \`${edit.path}\` and its \`-\` lines are not: it looks applied already. Don't send it again.`,
      );
    } else {
      fail(
        edit,
        "no-match",
        `\`${edit.path}\` does not contain lines that match this hunk, so it was not applied. ` +
          `The context (space) and removed (\`-\`) lines must be exact copies of consecutive lines of the file: don't skip blank lines, comments or docstrings.\n\n` +
          `\`${edit.path}\` has no run of these ${before.length} line${before.length === 1 ? "" : "s"}:\n${fenced(before, fence)}`,
        findSimilarLines(before, file),
      );
    }
  }
  return outcome();
}
