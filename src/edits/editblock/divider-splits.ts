import { isDivider } from "./markers.js";

export interface Split {
  search: string;
  replace: string;
}

/**
 * The ways to split a block body into SEARCH and REPLACE, most likely first. With one divider-like line there is
 * one split; a divider on the first line gives an empty SEARCH and comes first. With several (a Markdown setext underline, a merge-conflict marker in the content; docs/behaviour.md#divider-lines-inside-content), lines
 * that are exactly `=======` come before other divider-like lines, and a later divider before an earlier one: a
 * longer SEARCH that still matches the file is the better reading. The applier takes the first split that applies.
 * `dividerSplits(["a", "=======", "b"]) → [{ search: "a\n", replace: "b\n" }]`
 */
export function dividerSplits(body: readonly string[]): Split[] {
  const at: number[] = [];
  for (let k = body.length - 1; k >= 0; k--) if (isDivider(body[k]!)) at.push(k);
  const exact = (k: number) => body[k]?.trim() === "=======";
  // A divider right after the SEARCH marker means an empty SEARCH (a new file or an append), as in Aider.
  const first = at.includes(0) ? [0] : [];
  const ordered = [...first, ...at.filter((k) => k !== 0 && exact(k)), ...at.filter((k) => k !== 0 && !exact(k))];
  return ordered.map((k) => ({ search: asText(body.slice(0, k)), replace: asText(body.slice(k + 1)) }));
}

const asText = (lines: readonly string[]): string => (lines.length ? `${lines.join("\n")}\n` : "");
