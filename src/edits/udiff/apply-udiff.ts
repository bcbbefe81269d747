import { replaceInText } from "../editblock/replace-in-text.js";
import { splitLines } from "../match/split-lines.js";
import { similarLines } from "../similar-lines.js";
import type { AppliedEdit, ApplyOutcome, Edit, EditFailure, FileSnapshot } from "../types.js";

/** Split a hunk body into the text before and after it. */
export function hunkSides(hunk: string): { before: string[]; after: string[] } {
  const before: string[] = [];
  const after: string[] = [];
  for (const line of splitLines(hunk)) {
    const tag = line[0];
    const body = line.slice(1);
    if (tag === "-" || tag === " " || tag === undefined) before.push(body);
    if (tag === "+" || tag === " " || tag === undefined) after.push(body);
  }
  return { before, after };
}

const text = (lines: readonly string[]) => (lines.length ? `${lines.join("\n")}\n` : "");

/**
 * Apply udiff hunks: each hunk's before-text is replaced ONCE and only where it matches one place (fixes
 * replace-all, Aider #3883); when it does not match, retry with progressively less context at the edges (rung
 * `less-context`). A failed hunk fails alone; the others still apply and the failure says so.
 */
export function applyUdiff(snapshot: FileSnapshot, edits: readonly Edit[]): ApplyOutcome {
  const files = new Map(snapshot.files);
  const changes = new Map<string, string | null>();
  const applied: AppliedEdit[] = [];
  const failed: EditFailure[] = [];
  for (const edit of edits) {
    if (edit.kind === "patch-delete") {
      if (!files.has(edit.path)) failed.push({ path: edit.path, reason: "file-missing", message: `\`${edit.path}\` cannot be deleted: it does not exist.`, edit });
      else {
        files.delete(edit.path);
        changes.set(edit.path, null);
        applied.push({ path: edit.path, rung: "delete", edit });
      }
      continue;
    }
    if (edit.kind !== "udiff") {
      failed.push({ path: edit.path, reason: "malformed", message: `A ${edit.kind} edit cannot be applied as a unified diff.`, edit });
      continue;
    }
    const { before, after } = hunkSides(edit.hunk);
    const content = files.get(edit.path);
    if (before.every((l) => l.trim() === "")) {
      const next = content === undefined ? text(after) : (content === "" || content.endsWith("\n") ? content : `${content}\n`) + text(after);
      files.set(edit.path, next);
      changes.set(edit.path, next);
      applied.push({ path: edit.path, rung: content === undefined ? "create" : "append", edit });
      continue;
    }
    if (content === undefined) {
      failed.push({ path: edit.path, reason: "file-missing", message: `\`${edit.path}\` does not exist. A diff that creates a file must use \`--- /dev/null\` and only \`+\` lines.`, edit });
      continue;
    }
    const result = applyHunk(content, edit.hunk);
    if (result.kind === "ok") {
      files.set(edit.path, result.content);
      changes.set(edit.path, result.content);
      applied.push({ path: edit.path, rung: result.rung, edit });
    } else if (result.kind === "ambiguous") {
      failed.push({ path: edit.path, reason: "ambiguous", message: `A hunk for \`${edit.path}\` matches ${result.lines.length} places (lines ${result.lines.join(", ")}); it was not applied. Include more context lines so it matches one place.`, edit });
    } else {
      const similar = similarLines(before, splitLines(content));
      failed.push({
        path: edit.path,
        reason: "no-match",
        message: `\`${edit.path}\` does not contain lines that match this hunk:\n\n${edit.hunk}\nDon't skip blank lines, comments or docstrings: the context and \`-\` lines must match the file.`,
        ...(similar ? { detail: similar } : {}),
        edit,
      });
    }
  }
  return { changes, applied, failed };
}

function applyHunk(content: string, hunk: string) {
  const lines = splitLines(hunk);
  const direct = tryLines(content, lines);
  if (direct.kind !== "none") return direct;
  // Less context: drop context lines from the edges, preferring to keep the lines before the change.
  const firstChange = lines.findIndex((l) => l[0] === "+" || l[0] === "-");
  let lastChange = lines.length - 1;
  while (lastChange >= 0 && lines[lastChange]![0] !== "+" && lines[lastChange]![0] !== "-") lastChange--;
  const lead = firstChange;
  const trail = lines.length - 1 - lastChange;
  for (let drop = 1; drop <= lead + trail; drop++) {
    for (let fromEnd = Math.min(drop, trail); fromEnd >= 0; fromEnd--) {
      const fromStart = drop - fromEnd;
      if (fromStart > lead) continue;
      const r = tryLines(content, lines.slice(fromStart, lines.length - fromEnd));
      if (r.kind === "ok") return { ...r, rung: "less-context" as const };
      if (r.kind === "ambiguous") break;
    }
  }
  return direct;
}

function tryLines(content: string, lines: readonly string[]) {
  const { before, after } = hunkSides(`${lines.join("\n")}\n`);
  if (before.every((l) => l.trim() === "")) return { kind: "none" as const };
  return replaceInText(content, text(before), text(after));
}
