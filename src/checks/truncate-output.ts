import { countTokens } from "../llm/count-tokens.js";

/**
 * Keep lint/test output within a token budget, keeping the head (where the first error usually is) and the tail
 * (where summaries are), with a note of how many lines were cut.
 */
export function truncateOutput(text: string, maxTokens = 4000): string {
  if (countTokens(text) <= maxTokens) return text;
  const lines = text.split("\n");
  const headBudget = Math.floor(maxTokens * 0.5);
  const tailBudget = maxTokens - headBudget;
  const head: string[] = [];
  let used = 0;
  for (const l of lines) {
    const t = countTokens(l) + 1;
    if (used + t > headBudget) break;
    head.push(l);
    used += t;
  }
  const tail: string[] = [];
  used = 0;
  for (let i = lines.length - 1; i >= head.length; i--) {
    const t = countTokens(lines[i]!) + 1;
    if (used + t > tailBudget) break;
    tail.unshift(lines[i]!);
    used += t;
  }
  const cut = lines.length - head.length - tail.length;
  return [...head, `… [${cut} lines cut] …`, ...tail].join("\n");
}
