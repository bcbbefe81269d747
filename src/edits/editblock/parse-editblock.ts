import type { Edit, EditFailure, ParseContext, ParseResult } from "../types.js";
import { dividerSplits } from "./divider-splits.js";
import { findFilename } from "./find-filename.js";
import { isDivider, isFenceLine, isHead, isUpdated, shellFenceTag } from "./markers.js";

/**
 * Parse SEARCH/REPLACE blocks (`diff` and `diff-fenced`) out of a model's answer (docs/behaviour.md#edit-blocks with fixes
 * docs/behaviour.md#where-we-differ-from-aider). Never throws: a block that cannot be read becomes a failure and parsing goes on with the next one.
 * Markers, prose, fences and shell blocks may appear anywhere; CRLF answers are read as LF.
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
    if (shellFenceTag(line) && !isHead(lines[i + 1] ?? "") && !isHead(lines[i + 2] ?? "")) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trim().startsWith("```")) body.push(lines[i++]!);
      i++;
      const cmd = body.join("\n").trim();
      if (cmd) shell.push(cmd);
      continue;
    }
    if (!isHead(line)) {
      i++;
      continue;
    }
    const block = readBlock(lines, i);
    const splits = dividerSplits(block.body);
    const [main, ...rest] = splits;
    const isNewFile = main !== undefined && main.search.trim() === "";
    const path: string | null =
      findFilename(lines.slice(Math.max(0, i - 3), i), ctx.fence[0], known, isNewFile) ?? current;
    const where = `at line ${i + 1} of your answer`;
    if (!block.terminated) {
      failures.push({
        path: path ?? "",
        reason: "malformed",
        message: `The SEARCH/REPLACE block${path ? ` for \`${path}\`` : ""} ${where} has no \`>>>>>>> REPLACE\` line, so it was not applied. End every block with \`>>>>>>> REPLACE\`.`,
      });
    } else if (!path) {
      failures.push({
        path: "",
        reason: "missing-filename",
        message: `The SEARCH/REPLACE block ${where} does not say which file it edits. Put the file's path alone on the line before the opening fence ${ctx.fence[0]}.`,
      });
    } else if (!main) {
      failures.push({
        path,
        reason: "malformed",
        message: `The SEARCH/REPLACE block for \`${path}\` ${where} has no \`=======\` line between SEARCH and REPLACE.`,
      });
    } else {
      current = path;
      edits.push({
        kind: "replace",
        path,
        search: main.search,
        replace: main.replace,
        ...(rest.length ? { alternatives: rest } : {}),
      });
    }
    i = block.next;
  }
  return { edits, shell, failures };
}

/**
 * The body of the block whose HEAD is at `head`: the lines up to `>>>>>>> REPLACE`. Without that marker (before
 * the next HEAD or the end), a block whose last divider-like line is not its first is read the way Aider reads it —
 * that last divider ends REPLACE (models sometimes close with `=======`) — and what follows it is outside the
 * block. Nothing inside a block is ever dropped (docs/behaviour.md#divider-lines-inside-content).
 */
function readBlock(lines: readonly string[], head: number): { body: string[]; terminated: boolean; next: number } {
  let end = head + 1;
  while (end < lines.length && !isUpdated(lines[end]!) && !isHead(lines[end]!)) end++;
  if (end < lines.length && isUpdated(lines[end]!))
    return { body: lines.slice(head + 1, end), terminated: true, next: end + 1 };
  const dividers: number[] = [];
  for (let k = head + 1; k < end; k++) if (isDivider(lines[k]!)) dividers.push(k);
  const last = dividers[dividers.length - 1];
  if (dividers.length >= 2 && last !== undefined && onlyOutsideText(lines.slice(last + 1, end))) {
    return { body: lines.slice(head + 1, last), terminated: true, next: last + 1 };
  }
  return { body: lines.slice(head + 1, end), terminated: false, next: end };
}

/** After a closing `=======` only a fence, blank lines, and at most a next block's filename line may follow. */
function onlyOutsideText(after: readonly string[]): boolean {
  const rest = after.filter((l) => l.trim() !== "" && !isFenceLine(l, "```"));
  return rest.length <= 1;
}
