import { normalizeEditPath } from "../path-policy.js";
import type { Edit, EditFailure, ParseContext, ParseResult } from "../types.js";

const SECTION = /^\*\*\* (Add|Delete|Update) File:\s*(.+?)\s*$/;

/**
 * Parse a V4A patch (`*** Begin Patch` … `*** End Patch`) out of an answer, tolerating prose and fences around it
 * (AIDER.md A.13): Add File (`+` lines), Delete File, Update File with optional `*** Move to:` and a body of
 * `@@` chunks kept verbatim for the applier.
 */
export function parsePatch(text: string, _ctx: ParseContext): ParseResult {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const edits: Edit[] = [];
  const failures: EditFailure[] = [];
  let i = lines.findIndex((l) => l.trim() === "*** Begin Patch");
  if (i < 0) i = lines.findIndex((l) => SECTION.test(l.trim()));
  if (i < 0) return { edits, shell: [], failures };
  let sawEnd = false;
  while (i < lines.length) {
    const t = lines[i]!.trim();
    if (t === "*** End Patch") {
      sawEnd = true;
      break;
    }
    const m = SECTION.exec(t);
    if (!m) {
      i++;
      continue;
    }
    const [, op, rawPath] = m;
    const path = normalizeEditPath(rawPath!);
    i++;
    let moveTo: string | undefined;
    if (op === "Update" && /^\*\*\* Move to:/.test(lines[i]?.trim() ?? "")) {
      moveTo = normalizeEditPath(lines[i]!.trim().replace(/^\*\*\* Move to:\s*/, ""));
      i++;
    }
    const body: string[] = [];
    while (i < lines.length && !SECTION.test(lines[i]!.trim()) && lines[i]!.trim() !== "*** End Patch" && !/^`{3,}\s*$/.test(lines[i]!.trim())) {
      body.push(lines[i]!);
      i++;
    }
    if (op === "Delete") edits.push({ kind: "patch-delete", path });
    else if (op === "Add") {
      const bad = body.find((l) => l !== "" && !l.startsWith("+"));
      if (bad !== undefined) failures.push({ path, reason: "malformed", message: `In \`*** Add File: ${path}\` every line must start with \`+\`; found \`${bad}\`.` });
      else {
        while (body.length && body[body.length - 1] === "") body.pop();
        edits.push({ kind: "patch-add", path, content: body.length ? `${body.map((l) => l.slice(1)).join("\n")}\n` : "" });
      }
    } else edits.push({ kind: "patch-update", path, ...(moveTo ? { moveTo } : {}), body: `${body.join("\n")}\n` });
  }
  if (!sawEnd && edits.length > 0) {
    // A missing End marker is common when the model stops early; what was read is still usable.
  }
  return { edits, shell: [], failures };
}
