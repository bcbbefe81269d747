import { normalizeEditPath } from "../path-policy.js";
import type { Edit, EditFailure, ParseContext, ParseResult } from "../types.js";

/** `a/x` and `b/x` → `x`, for every file header (fixes Aider's second-file `b/` bug, AIDER.md 8.2 #10). */
function headerPath(raw: string): string {
  const p = raw.replace(/\t.*$/, "").trim();
  return normalizeEditPath(p.replace(/^[ab]\//, ""));
}

/**
 * Parse unified diffs from an answer: in ```diff fences, plain fences or no fence at all (AIDER.md A.11).
 * `---`/`+++` headers name the file (`/dev/null` = create or delete); `@@` lines split hunks; context-only hunks are
 * dropped; a hunk without a header inherits the previous file; no file at all is a `missing-filename` failure.
 */
export function parseUdiff(text: string, _ctx: ParseContext): ParseResult {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const edits: Edit[] = [];
  const failures: EditFailure[] = [];
  let path: string | null = null;
  // The hunks under a `+++ /dev/null` header only list the deleted lines: the delete edit already covers them.
  let deleting = false;
  let inDiff = false;
  let hunk: string[] = [];
  const flush = () => {
    while (hunk.length && hunk[hunk.length - 1] === "") hunk.pop();
    if (!deleting && hunk.some((l) => l.startsWith("+") || l.startsWith("-"))) {
      if (path) edits.push({ kind: "udiff", path, hunk: hunk.map((l) => (l === "" ? " " : l)).join("\n") + "\n" });
      else failures.push({ path: "", reason: "missing-filename", message: "A diff hunk has no `--- a/path` / `+++ b/path` header, so I can't tell which file it changes." });
    }
    hunk = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith("--- ") && (lines[i + 1] ?? "").startsWith("+++ ")) {
      flush();
      const from = line.slice(4).trim();
      const to = lines[i + 1]!.slice(4).trim();
      i++;
      inDiff = true;
      deleting = to === "/dev/null";
      if (deleting) {
        edits.push({ kind: "patch-delete", path: headerPath(from) });
        path = null;
        continue;
      }
      path = headerPath(to);
      continue;
    }
    if (line.startsWith("@@")) {
      flush();
      inDiff = true;
      continue;
    }
    if (line.trim().startsWith("```")) {
      flush();
      inDiff = false;
      continue;
    }
    if (inDiff && (line === "" || /^[ +-]/.test(line))) {
      if (line.startsWith("diff --git") || line.startsWith("index ")) continue;
      hunk.push(line);
      continue;
    }
    if (inDiff && (line.startsWith("\\ No newline") || line.startsWith("diff --git") || /^(index|new file mode|deleted file mode) /.test(line))) continue;
    flush();
    inDiff = false;
  }
  flush();
  return { edits, shell: [], failures };
}
