import type { Fence } from "../edits/types.js";

/** Candidate fences, in order of preference (docs/behaviour.md#messages-and-fences). */
const TRIPLE_BACKTICKS: Fence = ["```", "```"];

export const FENCE_CANDIDATES: readonly Fence[] = [
  TRIPLE_BACKTICKS,
  ["````", "````"],
  ["<source>", "</source>"],
  ["<code>", "</code>"],
  ["<pre>", "</pre>"],
  ["<codeblock>", "</codeblock>"],
  ["<sourcecode>", "</sourcecode>"],
];

/**
 * The first fence whose open and close strings start no line of the given file contents, so a file listing can
 * never be closed early by its own content. Falls back to triple backticks when every candidate collides.
 * @example chooseFence(["# Doc\n```sh\nls\n```\n"]) // → ["````", "````"]
 */
export function chooseFence(contents: Iterable<string>): Fence {
  const lines: string[] = [];
  for (const content of contents) for (const line of content.split(/\r?\n/)) lines.push(line);
  for (const fence of FENCE_CANDIDATES) {
    const collides = lines.some((line) => line.startsWith(fence[0]) || line.startsWith(fence[1]));
    if (!collides) return fence;
  }
  return TRIPLE_BACKTICKS;
}
