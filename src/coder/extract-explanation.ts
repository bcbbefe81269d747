import type { Fence } from "../edits/types.js";

/** `src/a.ts`, `**README.md**`, `Makefile/`: one token, a slash or an extension, not a sentence end ("Done."). */
function looksLikePath(line: string): boolean {
  const token = line.replace(/^[#*`\s]+|[*`:\s]+$/g, "");
  return /^[\w./@-]+$/.test(token) && /\/|\.\w+$/.test(token);
}

/**
 * The prose of an answer outside its edit blocks, for the run summary: fenced listings, SEARCH/REPLACE blocks,
 * V4A patches and the path lines that introduce them are removed; blank runs are collapsed.
 */
export function extractExplanation(text: string, fence: Fence): string {
  const lines = text.split(/\r?\n/);
  const kept: string[] = [];
  let inside: "fence" | "search-replace" | "patch" | null = null;
  const isFence = (line: string): boolean =>
    line.trimStart().startsWith("```") || line.startsWith(fence[0]) || line.startsWith(fence[1]);

  for (const line of lines) {
    if (inside === "fence") {
      if (isFence(line)) inside = null;
      continue;
    }
    if (inside === "search-replace") {
      if (/^>{5,9} ?REPLACE/.test(line.trim())) inside = null;
      continue;
    }
    if (inside === "patch") {
      if (line.trim() === "*** End Patch") inside = null;
      continue;
    }
    if (isFence(line) || /^<{5,9} ?SEARCH/.test(line.trim()) || line.trim() === "*** Begin Patch") {
      inside = isFence(line) ? "fence" : line.trim() === "*** Begin Patch" ? "patch" : "search-replace";
      // A path alone on the line before a block belongs to the block, not to the prose.
      const previous = kept.at(-1)?.trim() ?? "";
      if (looksLikePath(previous)) kept.pop();
      continue;
    }
    kept.push(line);
  }
  return kept
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
