import { fail, ok, type Result } from "../../result.js";
import { splitLines } from "../match/split-lines.js";
import type { HunkLine } from "../udiff/hunk-lines.js";

/** One `@@` section of an `*** Update File` body. */
export interface PatchChunk {
  /** `@@ text` lines before the chunk: lines of the file to find first, in order (class, then method, …). */
  anchors: string[];
  lines: HunkLine[];
  /** `*** End of File` followed the chunk: it belongs at the end of the file. */
  eof: boolean;
}

/**
 * Split an Update File body into chunks (docs/behaviour.md#v4a-patches): `@@` lines (bare or with an anchor text) start a chunk,
 * `+`/`-`/` ` lines are added/removed/context, an empty line is blank context, `*** End of File` marks the end.
 * A line without a prefix is read as context — models drop the space before unindented context lines, and the
 * applier still checks it against the file. Any other `***` line is an error (a malformed or misplaced marker).
 * Blank lines at the very start and end of the body are spacing between sections, not context.
 */
export function patchChunks(body: string): Result<PatchChunk[], "malformed"> {
  const lines = splitLines(body);
  while (lines.length > 0 && lines[0] === "") lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const chunks: PatchChunk[] = [];
  let cur: PatchChunk = { anchors: [], lines: [], eof: false };
  const push = () => {
    if (cur.lines.length > 0) chunks.push(cur);
    cur = { anchors: cur.lines.length > 0 ? [] : cur.anchors, lines: [], eof: false };
  };
  for (const line of lines) {
    if (line.startsWith("@@")) {
      if (cur.lines.length > 0) push();
      const anchor = line
        .slice(2)
        .replace(/\s*@@\s*$/, "")
        .trim();
      if (anchor) cur.anchors.push(anchor);
    } else if (line.trim() === "*** End of File") {
      cur.eof = true;
      push();
    } else if (line.startsWith("***")) {
      return fail("malformed", `\`${line}\` is not a valid line inside an \`*** Update File\` section.`);
    } else if (line.startsWith("+") || line.startsWith("-")) {
      cur.lines.push({ op: line[0] as "+" | "-", text: line.slice(1) });
    } else {
      cur.lines.push({ op: " ", text: line.startsWith(" ") ? line.slice(1) : line });
    }
  }
  push();
  return ok(chunks);
}
