import { normalizeEditPath } from "../path-policy.js";
import type { Edit, EditFailure, ParseContext, ParseResult } from "../types.js";

type Source = "block" | "saw" | "chat";

/** Clean a "filename line" before a listing: `**a.txt**:` → `a.txt`, `### a.txt` → `a.txt` (fixes AIDER.md 8.2 #11). */
export function cleanListingName(line: string): string {
  let s = line.trim();
  for (let k = 0; k < 3; k++) s = s.replace(/:+$/, "").replace(/^#+\s*/, "").replace(/^[*`]+|[*`]+$/g, "").trim();
  return s.length > 250 ? "" : s;
}

/**
 * Parse whole-file listings (AIDER.md §2.3): a fence opens a listing named by the line before it; fences nested
 * inside the listing (a Markdown file's ```bash) are tracked so they don't end it (A.12).
 */
export function parseWhole(text: string, ctx: ParseContext): ParseResult {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const found: { path: string; content: string; source: Source }[] = [];
  const failures: EditFailure[] = [];
  let saw: string | null = null;
  let i = 0;
  while (i < lines.length) {
    const open = /^(`{3,})/.exec(lines[i]!.trim()) ?? (lines[i]!.trim().startsWith(ctx.fence[0]) ? [ctx.fence[0], ctx.fence[0]] : null);
    if (!open) {
      for (const word of lines[i]!.split(/\s+/)) {
        const w = word.replace(/[.:,;!]+$/, "");
        const m = /^`(.+)`$/.exec(w);
        if (m && ctx.chatFiles.includes(normalizeEditPath(m[1]!))) saw = normalizeEditPath(m[1]!);
      }
      i++;
      continue;
    }
    const fenceLen = open[1]!.length;
    let name = i > 0 ? normalizeEditPath(cleanListingName(lines[i - 1]!)) : "";
    if (name && !ctx.chatFiles.includes(name)) {
      const base = ctx.chatFiles.filter((f) => f.split("/").pop() === name.split("/").pop());
      if (base.length === 1 && !name.includes("/")) name = base[0]!;
    }
    if (name && (/\s/.test(name) && !ctx.chatFiles.includes(name))) name = "";
    let source: Source = "block";
    if (!name && saw) [name, source] = [saw, "saw"];
    else if (!name && ctx.chatFiles.length === 1) [name, source] = [ctx.chatFiles[0]!, "chat"];
    const body: string[] = [];
    let depth = 0;
    let j = i + 1;
    for (; j < lines.length; j++) {
      const t = lines[j]!.trim();
      const fence = /^(`{3,})(.*)$/.exec(t);
      if (fence && fence[2]!.trim() === "" && depth === 0 && fence[1]!.length >= fenceLen) break;
      if (fence && fence[2]!.trim() !== "") depth++;
      else if (fence && depth > 0) depth--;
      body.push(lines[j]!);
    }
    if (!name) {
      failures.push({ path: "", reason: "missing-filename", message: `The file listing at line ${i + 1} of the answer does not say which file it is. Put the file's path alone on the line before the opening fence.` });
    } else {
      found.push({ path: name, content: body.length ? `${body.join("\n")}\n` : "", source });
    }
    saw = null;
    i = j + 1;
  }
  const order: Source[] = ["block", "saw", "chat"];
  const edits: Edit[] = [];
  const seen = new Set<string>();
  for (const src of order) {
    for (const f of found.filter((x) => x.source === src)) {
      if (seen.has(f.path)) continue;
      seen.add(f.path);
      edits.push({ kind: "whole", path: f.path, content: f.content });
    }
  }
  return { edits, shell: [], failures };
}
