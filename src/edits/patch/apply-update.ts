import { ok, type Failure, type Success } from "../../result.js";
import { joinLines, splitLines } from "../match/split-lines.js";
import { findSimilarLines } from "../find-similar-lines.js";
import type { FailureReason, MatchRung } from "../types.js";
import { hunkSides } from "../udiff/hunk-lines.js";
import { findContext } from "./find-context.js";
import { patchChunks } from "./patch-chunks.js";

/** The patched content, or why not (`detail`: the file's closest lines, for the model). */
export type UpdateResult =
  Success<{ content: string; rung: MatchRung }> | (Failure<FailureReason> & { detail?: string });

const RANK: readonly MatchRung[] = ["exact", "trailing-whitespace", "indent"];
const worse = (a: MatchRung, b: MatchRung): MatchRung => (RANK.indexOf(b) > RANK.indexOf(a) ? b : a);

/** The first line at or after `from` that is the anchor (trimmed), else one that starts with it (`@@ class Foo` for `class Foo(Base):`). */
function findAnchor(lines: readonly string[], anchor: string, from: number): number | null {
  const want = anchor.trim();
  for (const test of [(l: string) => l.trim() === want, (l: string) => l.trim().startsWith(want)]) {
    for (let i = from; i < lines.length; i++) if (test(lines[i]!)) return i;
  }
  return null;
}

/**
 * Apply an `*** Update File` body to LF content (docs/behaviour.md#v4a-patches): chunks in order, each after the previous one;
 * `@@` anchors move the search to the line they name; context is matched exactly, then whitespace-tolerant, at one
 * place only. Chunks out of order are still found by a second search over the whole file. A chunk that fails
 * fails the whole update, so a file is never left half-patched.
 */
export function applyUpdate(content: string, body: string, path: string): UpdateResult {
  const parsed = patchChunks(body);
  if (!parsed.ok)
    return { ok: false, reason: parsed.reason, message: `The update to \`${path}\` is malformed: ${parsed.message}` };
  let lines = splitLines(content);
  let cursor = 0;
  let rung: MatchRung = "exact";
  for (const chunk of parsed.value) {
    let anchorAt: number | null = null;
    for (const anchor of chunk.anchors) {
      const at: number | null =
        findAnchor(lines, anchor, anchorAt === null ? cursor : anchorAt + 1) ?? findAnchor(lines, anchor, 0);
      if (at === null) {
        return {
          ok: false,
          reason: "no-match",
          message: `\`${path}\` has no line \`${anchor}\`, named by the \`@@ ${anchor}\` line of your update. An \`@@\` line must repeat a line of the file, such as the class or function the change is in.`,
        };
      }
      anchorAt = at;
    }
    const { before } = hunkSides(chunk.lines);
    const added = chunk.lines.filter((l) => l.op === "+").map((l) => l.text);
    if (before.length === 0) {
      const at = chunk.eof ? lines.length : anchorAt !== null ? anchorAt + 1 : lines.length === 0 ? 0 : null;
      if (at === null) {
        return {
          ok: false,
          reason: "malformed",
          message: `A chunk of the update to \`${path}\` has only \`+\` lines and no \`@@\` line or context, so there is no telling where they go. Add an \`@@\` line naming the line they follow, or context lines around them.`,
        };
      }
      lines = [...lines.slice(0, at), ...added, ...lines.slice(at)];
      cursor = at + added.length;
      continue;
    }
    const from = anchorAt ?? cursor;
    let found = findContext(lines, chunk.lines, from, anchorAt, chunk.eof);
    if (found.kind === "none" && from > 0) found = findContext(lines, chunk.lines, 0, null, chunk.eof);
    const where = chunk.anchors.length ? ` after \`@@ ${chunk.anchors.join(" / ")}\`` : "";
    if (found.kind === "ambiguous") {
      return {
        ok: false,
        reason: "ambiguous",
        message: `A chunk of the update to \`${path}\`${where} matches ${found.at.length} places (starting at lines ${found.at.join(", ")}), so the update was not applied. Add context lines, or an \`@@\` line naming the class or function, so it matches one place:\n\n${joinLines(before)}`,
      };
    }
    if (found.kind === "none") {
      const detail = findSimilarLines(before, lines);
      return {
        ok: false,
        reason: "no-match",
        message: `\`${path}\` does not contain these ${before.length} line${before.length === 1 ? "" : "s"}${where}, which a chunk of your update expects (its context and \`-\` lines), so the update was not applied. Copy them exactly from the file, blank lines and comments included:\n\n${joinLines(before)}`,
        ...(detail ? { detail } : {}),
      };
    }
    lines = [...lines.slice(0, found.start), ...found.replacement, ...lines.slice(found.end)];
    cursor = found.start + found.replacement.length;
    rung = worse(rung, found.rung);
  }
  return ok({ content: joinLines(lines), rung });
}
