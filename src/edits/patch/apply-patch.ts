import { replaceInText } from "../editblock/replace-in-text.js";
import { splitLines } from "../match/split-lines.js";
import { similarLines } from "../similar-lines.js";
import type { AppliedEdit, ApplyOutcome, Edit, EditFailure, FileSnapshot, MatchRung } from "../types.js";

interface Chunk {
  anchor: string;
  before: string[];
  after: string[];
}

/** Split an Update File body into `@@` chunks of context/removed/added lines. */
export function patchChunks(body: string): Chunk[] {
  const chunks: Chunk[] = [];
  let cur: Chunk | null = null;
  for (const line of splitLines(body)) {
    if (line.startsWith("@@")) {
      if (cur && (cur.before.length || cur.after.length)) chunks.push(cur);
      cur = { anchor: line.replace(/^@@\s*/, "").replace(/\s*@@$/, "").trim(), before: [], after: [] };
      continue;
    }
    if (line.trim() === "*** End of File") continue;
    cur ??= { anchor: "", before: [], after: [] };
    const tag = line[0];
    const rest = line.slice(1);
    if (tag === "-") cur.before.push(rest);
    else if (tag === "+") cur.after.push(rest);
    else {
      const ctx = tag === " " ? rest : line;
      cur.before.push(ctx);
      cur.after.push(ctx);
    }
  }
  if (cur && (cur.before.length || cur.after.length)) chunks.push(cur);
  return chunks;
}

const text = (lines: readonly string[]) => (lines.length ? `${lines.join("\n")}\n` : "");

/** Apply V4A operations: Add (refuses existing files), Delete, Update (unique context, anchors, Move). */
export function applyPatch(snapshot: FileSnapshot, edits: readonly Edit[]): ApplyOutcome {
  const files = new Map(snapshot.files);
  const changes = new Map<string, string | null>();
  const applied: AppliedEdit[] = [];
  const failed: EditFailure[] = [];
  const fail = (edit: Edit, reason: EditFailure["reason"], message: string, detail?: string) =>
    failed.push({ path: edit.path, reason, message, edit, ...(detail ? { detail } : {}) });
  for (const edit of edits) {
    if (edit.kind === "patch-add") {
      if (files.has(edit.path)) fail(edit, "file-exists", `\`*** Add File: ${edit.path}\` — that file already exists. Use \`*** Update File\` to change it.`);
      else {
        files.set(edit.path, edit.content);
        changes.set(edit.path, edit.content);
        applied.push({ path: edit.path, rung: "create", edit });
      }
    } else if (edit.kind === "patch-delete") {
      if (!files.has(edit.path)) fail(edit, "file-missing", `\`*** Delete File: ${edit.path}\` — that file does not exist.`);
      else {
        files.delete(edit.path);
        changes.set(edit.path, null);
        applied.push({ path: edit.path, rung: "delete", edit });
      }
    } else if (edit.kind === "patch-update") {
      let content = files.get(edit.path);
      if (content === undefined) {
        fail(edit, "file-missing", `\`*** Update File: ${edit.path}\` — that file does not exist. Use \`*** Add File\` to create it.`);
        continue;
      }
      let rung: MatchRung = "exact";
      let error: EditFailure | null = null;
      for (const chunk of patchChunks(edit.body)) {
        const r = applyChunk(content, chunk);
        if (r.kind === "ok") {
          content = r.content;
          if (r.rung !== "exact") rung = r.rung;
          continue;
        }
        const where = chunk.anchor ? ` (after \`${chunk.anchor}\`)` : "";
        error =
          r.kind === "ambiguous"
            ? { path: edit.path, reason: "ambiguous", message: `A chunk of the update to \`${edit.path}\`${where} matches ${r.lines.length} places (lines ${r.lines.join(", ")}). Add context lines or an \`@@\` anchor so it matches one place.`, edit }
            : { path: edit.path, reason: "no-match", message: `A chunk of the update to \`${edit.path}\`${where} does not match the file:\n\n${text(chunk.before)}`, edit, detail: similarLines(chunk.before, splitLines(content)) || undefined };
        break;
      }
      if (error) {
        failed.push(error);
        continue;
      }
      const target = edit.moveTo ?? edit.path;
      if (edit.moveTo && edit.moveTo !== edit.path) {
        if (files.has(edit.moveTo)) {
          fail(edit, "file-exists", `\`*** Move to: ${edit.moveTo}\` — that file already exists.`);
          continue;
        }
        files.delete(edit.path);
        changes.set(edit.path, null);
      }
      files.set(target, content);
      changes.set(target, content);
      applied.push({ path: target, rung: edit.moveTo ? "move" : rung, edit });
    } else {
      fail(edit, "malformed", `A ${edit.kind} edit cannot be applied as a V4A patch.`);
    }
  }
  return { changes, applied, failed };
}

function applyChunk(content: string, chunk: Chunk) {
  if (chunk.before.every((l) => l.trim() === "")) {
    return { kind: "ok" as const, content: (content === "" || content.endsWith("\n") ? content : `${content}\n`) + text(chunk.after), rung: "append" as MatchRung };
  }
  const whole = replaceInText(content, text(chunk.before), text(chunk.after));
  if (whole.kind !== "ambiguous" || !chunk.anchor) return whole;
  // The `@@ anchor` line disambiguates: match only after the first line that equals the anchor.
  const lines = splitLines(content);
  const at = lines.findIndex((l) => l.trim() === chunk.anchor);
  if (at < 0) return whole;
  const head = text(lines.slice(0, at + 1));
  const tail = replaceInText(text(lines.slice(at + 1)), text(chunk.before), text(chunk.after));
  return tail.kind === "ok" ? { ...tail, content: head + tail.content } : tail;
}
