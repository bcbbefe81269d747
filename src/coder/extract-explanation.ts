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

/** Lines inside an edit block that name a file: a unified diff's `---`/`+++` headers and a V4A patch's file lines. */
const BLOCK_HEADER = /^(?:(?:---|\+\+\+) \S|\*\*\* (?:Update|Add|Delete) File: |\*\*\* Move to: )/;

/**
 * The part of an answer that can name files to add: its prose and the lines that say which file each edit block
 * edits (the path before or at the top of a block, diff and patch headers), without the code the blocks carry. A
 * file named only inside code — `#include "ini.h"` in a whole-file listing, an import in a SEARCH block — is what
 * the code refers to, not a request for the file: Aider adds it and spends a round on it.
 */
export function mentionableText(text: string, fence: Fence): string {
  const kept: string[] = [];
  let inside: "fence" | "search-replace" | "patch" | null = null;
  let first = false;
  const isFence = (line: string): boolean =>
    line.trimStart().startsWith("```") || line.startsWith(fence[0]) || line.startsWith(fence[1]);
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (inside === "fence") {
      if (isFence(line)) inside = null;
      else if ((first && looksLikePath(trimmed)) || BLOCK_HEADER.test(line)) kept.push(line);
      first = false;
      continue;
    }
    if (inside === "search-replace") {
      if (/^>{5,9} ?REPLACE/.test(trimmed)) inside = null;
      continue;
    }
    if (inside === "patch") {
      if (trimmed === "*** End Patch") inside = null;
      else if (BLOCK_HEADER.test(trimmed)) kept.push(trimmed);
      continue;
    }
    if (isFence(line)) {
      inside = "fence";
      first = true;
    } else if (/^<{5,9} ?SEARCH/.test(trimmed)) inside = "search-replace";
    else if (trimmed === "*** Begin Patch") inside = "patch";
    else kept.push(line);
  }
  return kept.join("\n");
}
