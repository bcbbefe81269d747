import type { EditFailure } from "../types.js";
import { findSimilarLines } from "../find-similar-lines.js";
import { findWindows } from "../match/find-windows.js";
import { isBlank, splitLines } from "../match/split-lines.js";
import type { ReplaceEdit } from "./replace-block.js";

export type BlockProblem =
  | { kind: "ambiguous"; edit: ReplaceEdit; lines: readonly number[] }
  | { kind: "no-match"; edit: ReplaceEdit; content: string | undefined; elsewhere: readonly string[] };

/**
 * The failure for a SEARCH/REPLACE block that did not apply, with what the model needs to fix it: the line
 * numbers of an ambiguous match (docs/behaviour.md#ambiguous-matches-are-refused), the closest real lines ("did you mean", docs/behaviour.md#failed-edits), or that its
 * REPLACE text is already in the file (Aider #4098: models re-send blocks that did apply).
 */
export function editFailure(problem: BlockProblem): EditFailure {
  const { edit } = problem;
  const path = edit.path;
  if (problem.kind === "ambiguous") {
    const where = problem.lines.join(", ");
    return {
      path,
      reason: "ambiguous",
      message: `The SEARCH text matches ${problem.lines.length} places in \`${path}\` (starting at lines ${where}), so it was not applied anywhere. Add surrounding lines to SEARCH so it matches exactly one place.`,
      detail: `lines ${where}`,
      edit,
    };
  }
  const { content, elsewhere } = problem;
  if (content === undefined) {
    return {
      path,
      reason: "file-missing",
      message: `\`${path}\` does not exist, and the SEARCH text was not found in any other file. To create a new file, use an empty SEARCH section; to edit an existing file, use its exact path.`,
      edit,
    };
  }
  const fileLines = splitLines(content);
  if (replaceAlreadyThere(fileLines, edit)) {
    return {
      path,
      reason: "already-applied",
      message: `The SEARCH text is not in \`${path}\`, but the REPLACE text already is: this change seems to be made already.`,
      edit,
    };
  }
  const similar = findSimilarLines(splitLines(edit.search), fileLines);
  const also = elsewhere.length
    ? ` It does match in several other files (${elsewhere.map((p) => `\`${p}\``).join(", ")}), so none of them was edited.`
    : "";
  return {
    path,
    reason: "no-match",
    message: `The SEARCH text does not match any lines in \`${path}\`.${also}`,
    ...(similar ? { detail: similar } : {}),
    edit,
  };
}

/**
 * Whether REPLACE's lines (blank lines around them ignored) stand in the file as consecutive lines. A REPLACE that
 * is itself part of SEARCH (a deletion) proves nothing, since that text was there before the edit too.
 */
export function replaceAlreadyThere(fileLines: readonly string[], edit: ReplaceEdit): boolean {
  const replace = trimBlankEdges(splitLines(edit.replace));
  if (replace.length === 0) return false;
  const key = (l: string) => l.trimEnd();
  if (findWindows(splitLines(edit.search), replace, key, 1).length > 0) return false;
  return findWindows(fileLines, replace, key, 1).length > 0;
}

function trimBlankEdges(lines: string[]): string[] {
  let a = 0;
  let b = lines.length;
  while (a < b && isBlank(lines[a]!)) a++;
  while (b > a && isBlank(lines[b - 1]!)) b--;
  return lines.slice(a, b);
}
