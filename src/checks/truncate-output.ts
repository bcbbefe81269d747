import { countTokens } from "../llm/count-tokens.js";

/** A single line longer than this is cut in its middle first (minified bundles, base64 blobs, progress bars). */
const MAX_LINE_CHARS = 1_000;

/**
 * Keep lint/test output within a token budget: the head (where the first error usually is) and the tail (where
 * summaries and the last failure are), with a marker saying how many lines were cut. Output that fits is returned
 * unchanged. Uses the real tokenizer once loaded (`loadTokenizer`), else a chars/4 estimate.
 *
 * @example truncateOutput(manyLines, 2000) // "first lines…\n… [812 lines cut] …\n…last lines"
 */
export function truncateOutput(text: string, maxTokens = 4_000): string {
  // Long lines are cut before anything is counted, so the cost stays linear in the output's length.
  const lines = text.split("\n").map(cutLongLine);
  const cutText = lines.join("\n");
  // A token is at least one character: text no longer than the budget fits without counting.
  if (cutText.length <= maxTokens || countTokens(cutText) <= maxTokens) return cutText;
  const headBudget = Math.floor(maxTokens / 2);
  const head: string[] = [];
  let used = 0;
  for (const line of lines) {
    const cost = countTokens(line) + 1;
    if (used + cost > headBudget) break;
    head.push(line);
    used += cost;
  }
  const tail: string[] = [];
  const tailBudget = maxTokens - used;
  used = 0;
  for (const line of lines.slice(head.length).reverse()) {
    const cost = countTokens(line) + 1;
    if (used + cost > tailBudget) break;
    tail.unshift(line);
    used += cost;
  }
  const cut = lines.length - head.length - tail.length;
  if (cut === 0) return [...head, ...tail].join("\n");
  return [...head, `… [${cut} line${cut === 1 ? "" : "s"} cut] …`, ...tail].join("\n");
}

function cutLongLine(line: string): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  const keep = MAX_LINE_CHARS / 2;
  return `${line.slice(0, keep)} … [${line.length - MAX_LINE_CHARS} characters cut] … ${line.slice(-keep)}`;
}
