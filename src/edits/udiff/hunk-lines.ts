import { diffArrays } from "diff";
import { splitLines } from "../match/split-lines.js";

/** One line of a hunk: unchanged context, removed, or added. */
export interface HunkLine {
  op: " " | "-" | "+";
  text: string;
}

/** The lines a hunk expects in the file (context and removed) and the lines it leaves there (context and added). */
export function hunkSides(lines: readonly HunkLine[]): { before: string[]; after: string[] } {
  return {
    before: lines.filter((l) => l.op !== "+").map((l) => l.text),
    after: lines.filter((l) => l.op !== "-").map((l) => l.text),
  };
}

/**
 * Read a hunk body and normalise it the way Aider does (docs/behaviour.md#unified-diffs): a line without a valid prefix is context
 * holding the whole line, a whitespace-only context line is blank, and the hunk is rebuilt from its before and after
 * sides with jsdiff, so a model that removes and re-adds a whole function ("replace the whole function", as the
 * prompt asks) yields context for the lines it did not really change. That context is what the less-context retry
 * can later drop. A hunk that changes nothing comes back with no `-`/`+` line.
 */
export function normalizeHunk(hunk: string): HunkLine[] {
  const raw: HunkLine[] = splitLines(hunk).map((line) => {
    const op = line[0];
    if (op === "-" || op === "+") return { op, text: line.slice(1) };
    const text = op === " " ? line.slice(1) : line;
    return { op: " ", text: text.trim() === "" ? "" : text };
  });
  const { before, after } = hunkSides(raw);
  const out: HunkLine[] = [];
  for (const part of diffArrays(before, after)) {
    const op = part.added ? "+" : part.removed ? "-" : " ";
    for (const text of part.value) out.push({ op, text });
  }
  return out;
}

/** Whether a hunk changes anything. */
export const hasChange = (lines: readonly HunkLine[]): boolean => lines.some((l) => l.op !== " ");
