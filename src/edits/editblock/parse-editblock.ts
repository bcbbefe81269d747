import type { Edit, EditFailure, ParseContext, ParseResult } from "../types.js";
import { findFilename } from "./find-filename.js";
import { DIVIDER, HEAD, UPDATED, shellFenceTag } from "./markers.js";

/**
 * Parse SEARCH/REPLACE blocks (`diff` and `diff-fenced`) out of a model's answer (AIDER.md §2.1.1 with fixes
 * A.1–A.3). Never throws: a block that cannot be read becomes a failure and parsing goes on with the next one.
 */
export function parseEditBlocks(text: string, ctx: ParseContext): ParseResult {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const edits: Edit[] = [];
  const shell: string[] = [];
  const failures: EditFailure[] = [];
  const known = { chatFiles: ctx.chatFiles, repoFiles: ctx.repoFiles ?? [] };
  let current: string | null = null;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (shellFenceTag(line) && !HEAD.test((lines[i + 1] ?? "").trim()) && !HEAD.test((lines[i + 2] ?? "").trim())) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trim().startsWith("```")) body.push(lines[i++]!);
      i++;
      const cmd = body.join("\n").trim();
      if (cmd) shell.push(cmd);
      continue;
    }
    if (!HEAD.test(line.trim())) {
      i++;
      continue;
    }
    const named = findFilename(lines.slice(Math.max(0, i - 3), i), ctx.fence[0], known);
    const path: string | null = named ?? current;
    // The block body runs to the REPLACE marker; every line in between is kept (nothing is silently dropped).
    let end = i + 1;
    while (end < lines.length && !UPDATED.test(lines[end]!.trim()) && !HEAD.test(lines[end]!.trim())) end++;
    if (end >= lines.length || HEAD.test(lines[end]!.trim())) {
      failures.push({
        path: path ?? "",
        reason: "malformed",
        message: `A SEARCH block${path ? ` for \`${path}\`` : ""} starting at line ${i + 1} of the answer has no \`>>>>>>> REPLACE\` line.`,
      });
      i = end;
      continue;
    }
    const body = lines.slice(i + 1, end);
    const splits = dividerSplits(body);
    if (!path) {
      failures.push({
        path: "",
        reason: "missing-filename",
        message: `The SEARCH/REPLACE block at line ${i + 1} of the answer does not say which file it edits. Put the file's path alone on the line before the opening fence.`,
      });
    } else if (splits.length === 0) {
      failures.push({ path, reason: "malformed", message: `The SEARCH/REPLACE block for \`${path}\` at line ${i + 1} has no \`=======\` line between SEARCH and REPLACE.` });
    } else {
      current = path;
      const [main, ...rest] = splits;
      edits.push({ kind: "replace", path, search: main!.search, replace: main!.replace, ...(rest.length ? { alternatives: rest } : {}) });
    }
    i = end + 1;
  }
  return { edits, shell, failures };
}

/**
 * The ways to split a block body into SEARCH and REPLACE. With one divider-like line there is one split; with
 * several (a Markdown setext heading, a conflict marker in the content), the exact `=======` line comes first,
 * and the applier picks the split whose SEARCH matches the file (AIDER.md A.2).
 */
function dividerSplits(body: readonly string[]): { search: string; replace: string }[] {
  const at = body.flatMap((l, k) => (DIVIDER.test(l.trim()) ? [k] : []));
  const ordered = [...at.filter((k) => body[k]!.trim() === "======="), ...at.filter((k) => body[k]!.trim() !== "=======")];
  return ordered.map((k) => ({ search: asText(body.slice(0, k)), replace: asText(body.slice(k + 1)) }));
}

const asText = (lines: readonly string[]): string => (lines.length ? `${lines.join("\n")}\n` : "");
