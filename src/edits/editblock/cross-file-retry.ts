import { replaceBlock, type ReplaceEdit } from "./replace-block.js";

export type CrossFileResult =
  { kind: "one"; path: string; content: string } | { kind: "several"; paths: string[] } | { kind: "none" };

/**
 * When SEARCH is not in the named file, look for it in the other chat files (Aider's fallback), but
 * deterministically — in chat order — and only when exactly one file has exactly one match (docs/behaviour.md#deterministic-cross-file-retry; Aider
 * iterates a set and takes the first success, #2097). Never called for an empty SEARCH (Aider #2258).
 */
export function crossFileRetry(
  files: ReadonlyMap<string, string>,
  edit: ReplaceEdit,
  chatFiles: readonly string[],
  fuzzy: boolean,
): CrossFileResult {
  const hits: { path: string; content: string }[] = [];
  for (const path of new Set(chatFiles)) {
    if (path === edit.path) continue;
    const content = files.get(path);
    if (content === undefined) continue;
    const r = replaceBlock(content, edit, fuzzy);
    if (r.kind === "ok") hits.push({ path, content: r.content });
  }
  const [hit, ...more] = hits;
  if (hit && more.length === 0) return { kind: "one", ...hit };
  if (more.length > 0) return { kind: "several", paths: hits.map((h) => h.path) };
  return { kind: "none" };
}
