import { normalizeEditPath } from "../path-policy.js";
import type { Edit, EditFailure, ParseContext, ParseResult } from "../types.js";

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const SECTION = /^\*\*\* (Add|Delete|Update) File:\s*(.*?)\s*$/;
const MOVE = /^\*\*\* Move to:\s*(.*?)\s*$/;
// Unindented on purpose: a context line ` ```` inside an Update body starts with its space prefix.
const isFence = (line: string) => /^(`{3,}|~{3,})/.test(line);
const cleanPath = (raw: string) => normalizeEditPath(raw.replace(/^[`"']+|[`"']+$/g, ""));

/**
 * Parse V4A patches (docs/behaviour.md#v4a-patches with the fixes of docs/behaviour.md#v4a-patch-fixes). Prose and fences around `*** Begin Patch` …
 * `*** End Patch` are ignored (Aider fails on any line before the patch although its prompt asks for an
 * explanation first); without the Begin marker the patch starts at the first `*** … File:` line, and without the
 * End marker it ends at a closing fence or the end of the answer. Several patches in one answer are all read.
 * Add File takes `+` lines (a blank line is an empty line); Update File keeps its body verbatim for the applier,
 * with an optional `*** Move to:`. Repeated Update sections for one file are merged, a repeated Delete is kept once,
 * and any other two actions on one file are a `malformed` failure.
 */
export function parsePatch(text: string, _ctx: ParseContext): ParseResult {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const edits: Edit[] = [];
  const failures: EditFailure[] = [];
  let i = 0;
  for (;;) {
    while (i < lines.length && lines[i]!.trim() !== BEGIN && !SECTION.test(lines[i]!.trim())) i++;
    if (i >= lines.length) break;
    if (lines[i]!.trim() === BEGIN) i++;
    while (i < lines.length) {
      const t = lines[i]!.trim();
      if (t === END || isFence(lines[i]!)) {
        i++;
        break;
      }
      const m = SECTION.exec(t);
      i++;
      if (!m) continue; // blank lines or stray prose between the Begin marker and a section
      const body: string[] = [];
      while (
        i < lines.length &&
        !SECTION.test(lines[i]!.trim()) &&
        ![END, BEGIN].includes(lines[i]!.trim()) &&
        !isFence(lines[i]!)
      )
        body.push(lines[i++]!);
      const failure = addSection(edits, m[1] as "Add" | "Delete" | "Update", cleanPath(m[2]!), body);
      if (failure) failures.push(failure);
    }
  }
  return { edits, shell: [], failures };
}

function addSection(edits: Edit[], op: "Add" | "Delete" | "Update", path: string, body: string[]): EditFailure | null {
  if (!path)
    return {
      path: "",
      reason: "missing-filename",
      message: `An \`*** ${op} File:\` line names no file. Write the path after the colon.`,
    };
  while (body.at(-1)?.trim() === "") body.pop();
  let edit: Edit;
  if (op === "Delete") edit = { kind: "patch-delete", path };
  else if (op === "Add") {
    const bad = body.find((l) => l !== "" && !l.startsWith("+"));
    if (bad !== undefined) {
      return {
        path,
        reason: "malformed",
        message: `In \`*** Add File: ${path}\` every line of the new file must start with \`+\`; this one does not: \`${bad}\`. The file was not created.`,
      };
    }
    edit = { kind: "patch-add", path, content: body.length ? `${body.map((l) => l.slice(1)).join("\n")}\n` : "" };
  } else {
    const move = MOVE.exec(body[0]?.trim() ?? "");
    if (move) body.shift();
    const moveTo = move ? cleanPath(move[1]!) : undefined;
    edit = {
      kind: "patch-update",
      path,
      ...(moveTo ? { moveTo } : {}),
      body: body.length ? `${body.join("\n")}\n` : "",
    };
  }
  const prior = edits.findIndex((e) => e.path === path);
  if (prior < 0) {
    edits.push(edit);
    return null;
  }
  const old = edits[prior]!;
  if (old.kind === "patch-delete" && edit.kind === "patch-delete") return null;
  if (old.kind === "patch-update" && edit.kind === "patch-update" && old.moveTo === edit.moveTo) {
    edits[prior] = { ...old, body: old.body + edit.body };
    return null;
  }
  return {
    path,
    reason: "malformed",
    message: `\`${path}\` has more than one action in your patch (${sectionName(old)} and ${sectionName(edit)}). Use one section per file.`,
    edit,
  };
}

const sectionName = (e: Edit) =>
  e.kind === "patch-add" ? "Add File" : e.kind === "patch-delete" ? "Delete File" : "Update File";
