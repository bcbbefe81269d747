import type { AppliedEdit, ApplyOptions, ApplyOutcome, Edit, EditFailure, FileSnapshot } from "../types.js";
import { splitLines } from "../match/split-lines.js";
import { similarLines } from "../similar-lines.js";
import { replaceInText, type ReplaceResult } from "./replace-in-text.js";

type ReplaceEdit = Extract<Edit, { kind: "replace" }>;

/**
 * Apply SEARCH/REPLACE edits in order, each against the files as earlier edits left them (LF text in, LF text out;
 * `applyEdits` handles line endings and path policy). Fails rather than guesses: ambiguous matches and cross-file
 * matches in several files are failures (AIDER.md A.7, A.8).
 */
export function applyEditBlocks(snapshot: FileSnapshot, edits: readonly Edit[], options: ApplyOptions): ApplyOutcome {
  const files = new Map(snapshot.files);
  const changes = new Map<string, string | null>();
  const applied: AppliedEdit[] = [];
  const failed: EditFailure[] = [];
  const write = (path: string, content: string) => {
    files.set(path, content);
    changes.set(path, content);
  };
  for (const edit of edits) {
    if (edit.kind !== "replace") {
      failed.push({ path: edit.path, reason: "malformed", message: `A ${edit.kind} edit cannot be applied as SEARCH/REPLACE.`, edit });
      continue;
    }
    const content = files.get(edit.path);
    if (edit.search.trim() === "") {
      // Empty SEARCH: create the file, or append to it; never falls back to another file (Aider #2258).
      if (content === undefined) {
        write(edit.path, edit.replace);
        applied.push({ path: edit.path, rung: "create", edit });
      } else {
        write(edit.path, (content === "" || content.endsWith("\n") ? content : `${content}\n`) + edit.replace);
        applied.push({ path: edit.path, rung: "append", edit });
      }
      continue;
    }
    const here = content === undefined ? null : bestSplit(content, edit);
    if (here?.result.kind === "ok") {
      write(edit.path, here.result.content);
      applied.push({ path: edit.path, rung: here.result.rung, edit });
      continue;
    }
    if (here?.result.kind === "ambiguous") {
      failed.push(ambiguousFailure(edit, here.result.lines));
      continue;
    }
    const other = crossFile(files, edit, options.chatFiles);
    if (other.kind === "one") {
      write(other.path, other.content);
      applied.push({ path: other.path, rung: `cross-file:${edit.path}`, edit });
      continue;
    }
    failed.push(noMatchFailure(edit, content, other.kind === "several" ? other.paths : []));
  }
  return { changes, applied, failed };
}

/** Try the block's main split and its alternatives; among those that apply, the longest SEARCH wins. */
function bestSplit(content: string, edit: ReplaceEdit): { result: ReplaceResult } {
  const splits = [{ search: edit.search, replace: edit.replace }, ...(edit.alternatives ?? [])];
  const results = splits.map((s) => ({ s, r: replaceInText(content, s.search, s.replace) }));
  const ok = results.filter((x) => x.r.kind === "ok").sort((a, b) => b.s.search.length - a.s.search.length);
  return { result: ok[0]?.r ?? results[0]!.r };
}

function crossFile(files: Map<string, string>, edit: ReplaceEdit, chatFiles: readonly string[]) {
  const hits: { path: string; content: string }[] = [];
  for (const path of chatFiles) {
    if (path === edit.path) continue;
    const content = files.get(path);
    if (content === undefined) continue;
    const r = bestSplit(content, edit).result;
    if (r.kind === "ok") hits.push({ path, content: r.content });
  }
  if (hits.length === 1) return { kind: "one" as const, ...hits[0]! };
  if (hits.length > 1) return { kind: "several" as const, paths: hits.map((h) => h.path) };
  return { kind: "none" as const };
}

function ambiguousFailure(edit: ReplaceEdit, lines: number[]): EditFailure {
  return {
    path: edit.path,
    reason: "ambiguous",
    message: `The SEARCH text matches ${lines.length} places in \`${edit.path}\` (lines ${lines.join(", ")}), so it was not applied. Include more surrounding lines so it matches exactly one place.`,
    detail: `lines ${lines.join(", ")}`,
    edit,
  };
}

function noMatchFailure(edit: ReplaceEdit, content: string | undefined, elsewhere: string[]): EditFailure {
  if (content === undefined) {
    return {
      path: edit.path,
      reason: "file-missing",
      message: `\`${edit.path}\` does not exist. To create a new file, use an empty SEARCH section; to edit an existing file, use its exact path.`,
      edit,
    };
  }
  if (edit.replace.trim() && content.includes(edit.replace)) {
    return {
      path: edit.path,
      reason: "already-applied",
      message: `The SEARCH text is not in \`${edit.path}\`, but the REPLACE text already is: this change seems to be made already. Don't send this block again.`,
      edit,
    };
  }
  const similar = similarLines(splitLines(edit.search), splitLines(content));
  const also = elsewhere.length ? ` It matches in several other files (${elsewhere.join(", ")}), so none was edited.` : "";
  return {
    path: edit.path,
    reason: "no-match",
    message: `The SEARCH text does not match any lines in \`${edit.path}\`.${also}`,
    ...(similar ? { detail: similar } : {}),
    edit,
  };
}
