import type { Edit } from "../types.js";
import { replaceInText, type ReplaceResult } from "./replace-in-text.js";

export type ReplaceEdit = Extract<Edit, { kind: "replace" }>;

/**
 * Apply one SEARCH/REPLACE block to LF text, trying the block's splits in the parser's order of preference (a block
 * with several divider-like lines has alternatives, docs/behaviour.md#divider-lines-inside-content) and taking the first that applies. When none
 * applies, the main split's result is returned: it is the reading the failure report shows.
 */
export function replaceBlock(content: string, edit: ReplaceEdit, fuzzy: boolean): ReplaceResult {
  const splits = [{ search: edit.search, replace: edit.replace }, ...(edit.alternatives ?? [])];
  let first: ReplaceResult | null = null;
  for (const s of splits) {
    if (s.search.trim() === "") continue;
    const r = replaceInText(content, s.search, s.replace, { fuzzy });
    if (r.kind === "ok") return r;
    first ??= r;
  }
  return first ?? { kind: "none" };
}
