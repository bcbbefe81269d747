const TAGS = "think|thinking|reasoning";
const LEADING_OPEN = new RegExp(`^\\s*<(${TAGS})>`, "i");
const ANY_OPEN = new RegExp(`<(${TAGS})>`, "i");
const ANY_CLOSE = new RegExp(`</(${TAGS})\\s*>`, "i");
// Anything that starts the real answer: after it, a tag is file content, not reasoning.
const ANSWER_START = /^(```|~~~|<<<<<<<|\*\*\* Begin Patch|--- |\+\+\+ )/m;
const FENCE = /^\s*(```|~~~)/;

/**
 * Remove reasoning sections (`<think>`, `<thinking>`, `<reasoning>`) that some models write into the answer, so
 * their drafts are never parsed as edits:
 * - sections at the start of the answer (an unclosed one there means the whole reply was reasoning: "" is returned);
 * - a closing tag with no opening one before any code, which chat templates produce when they put `<think>` in the
 *   prompt (DeepSeek-R1 and Qwen3 served by some endpoints);
 * - later sections that occupy whole lines outside code fences.
 * Tags inside fences or indented (file contents, e.g. an XML edit) are kept. Text without tags is returned unchanged.
 */
export function stripReasoning(text: string): string {
  let out = text;
  for (let open = LEADING_OPEN.exec(out); open; open = LEADING_OPEN.exec(out)) {
    const rest = out.slice(open[0].length);
    const close = new RegExp(`</${open[1]}\\s*>`, "i").exec(rest);
    if (!close) return "";
    out = rest.slice(close.index + close[0].length).replace(/^\s+/, "");
  }
  const orphan = ANY_CLOSE.exec(out);
  if (orphan) {
    const before = out.slice(0, orphan.index);
    if (!ANY_OPEN.test(before) && !ANSWER_START.test(before))
      out = out.slice(orphan.index + orphan[0].length).replace(/^\s+/, "");
  }
  return stripLineSections(out) ?? out;
}

/** Drop `<think>` … `</think>` blocks that start and end on their own lines outside fences; null when there are none. */
function stripLineSections(text: string): string | null {
  if (!ANY_OPEN.test(text)) return null;
  const lines = text.split("\n");
  const kept: string[] = [];
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (FENCE.test(line)) inFence = !inFence;
    const open = inFence ? null : new RegExp(`^<(${TAGS})>`, "i").exec(line);
    if (open) {
      const closing = new RegExp(`</${open[1]}\\s*>\\s*$`, "i");
      const end = lines.findIndex((l, j) => j >= i && closing.test(l));
      if (end >= 0) {
        i = end;
        continue;
      }
    }
    kept.push(line);
  }
  return kept.join("\n");
}
