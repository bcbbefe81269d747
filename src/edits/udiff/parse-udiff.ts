import type { Edit, EditFailure, ParseContext, ParseResult } from "../types.js";
import { DEV_NULL, headerPaths, rawHeaderPath } from "./header-path.js";

/** git's extended header lines: skipped, they carry nothing we apply. */
const GIT_META =
  /^(diff --git |index [0-9a-f]|new file mode |deleted file mode |old mode |new mode |similarity index |rename (from|to) |Binary files )/;

/** A `---`/`+++` pair that names files rather than changing lines: git prefixes, /dev/null, one path, a known file. */
function looksLikeHeader(from: string, to: string, known: (p: string) => boolean): boolean {
  return (
    from === DEV_NULL ||
    to === DEV_NULL ||
    from.startsWith("a/") ||
    to.startsWith("b/") ||
    from === to ||
    known(from) ||
    known(to)
  );
}

/** A new file being read: its `patch-add` edit's place in the edits, its path, and the lines read so far. */
type Created = { index: number; path: string; lines: string[] };
type Target = { kind: "edit"; path: string } | ({ kind: "create" } & Created) | { kind: "delete" } | null;

/**
 * Parse unified diffs out of an answer (docs/behaviour.md#unified-diffs with the fixes of docs/behaviour.md#unified-diff-fixes). Diffs are read in any fence
 * (```diff, plain ```, ````) or none, and an unterminated fence keeps its last line. `---`/`+++` headers name the
 * file with `a/`/`b/` stripped for every file; `--- /dev/null` creates a file (a `patch-add` edit) and
 * `+++ /dev/null` deletes one (a `patch-delete` edit). `@@` lines split hunks and their line numbers are ignored;
 * hunks made only of context are dropped; a hunk without a header belongs to the previous file, and with no file at
 * all it is a `missing-filename` failure instead of Aider's crash. Identical hunks are kept once.
 */
export function parseUdiff(text: string, ctx: ParseContext): ParseResult {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const known = (p: string) => ctx.chatFiles.includes(p) || (ctx.repoFiles?.includes(p) ?? false);
  const edits: Edit[] = [];
  const created: Created[] = [];
  const failures: EditFailure[] = [];
  const seen = new Set<string>();
  let target: Target = null;
  let inDiff = false;
  let hunk: string[] = [];

  const flush = () => {
    while (hunk.at(-1)?.trim() === "") hunk.pop();
    const body = hunk;
    hunk = [];
    if (!body.some((l) => l.startsWith("+") || l.startsWith("-"))) return;
    if (target === null) {
      failures.push({
        path: "",
        reason: "missing-filename",
        message:
          "A diff hunk has no `--- path` / `+++ path` header before it, so I can't tell which file it changes. Start every file's diff with both header lines.",
      });
    } else if (target.kind === "create") {
      // A new file's hunks only add lines; a context line there is content too.
      target.lines.push(...body.filter((l) => !l.startsWith("-")).map((l) => l.slice(1)));
    } else if (target.kind === "edit") {
      const joined = `${body.map((l) => (l === "" ? " " : l)).join("\n")}\n`;
      const key = `${target.path}\0${joined}`;
      if (!seen.has(key)) edits.push({ kind: "udiff", path: target.path, hunk: joined });
      seen.add(key);
    }
    // Under `+++ /dev/null` the hunks just list the deleted lines: the delete edit covers them.
  };

  const header = (fromLine: string | null, toLine: string) => {
    flush();
    inDiff = true;
    const { from, to } = headerPaths(fromLine === null ? "" : rawHeaderPath(fromLine), rawHeaderPath(toLine), known);
    if (to === DEV_NULL) {
      target = { kind: "delete" };
      if (from && from !== DEV_NULL && !edits.some((e) => e.kind === "patch-delete" && e.path === from))
        edits.push({ kind: "patch-delete", path: from });
      return;
    }
    if (!to) target = null;
    else if (from === DEV_NULL) {
      const file: Created = { index: edits.length, path: to, lines: [] };
      target = { kind: "create", ...file };
      created.push(file);
      edits.push({ kind: "patch-add", path: to, content: "" });
    } else target = { kind: "edit", path: to };
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const next = lines[i + 1] ?? "";
    // Inside a diff, `--- x` + `+++ y` could be a removed `-- x` and an added `++ y` (SQL, Lua, Haskell comments):
    // there it is a header only when it looks like one or an `@@` follows.
    const headerHere = (from: string, to: string) =>
      !inDiff ||
      (lines[i + 2] ?? "").startsWith("@@") ||
      looksLikeHeader(rawHeaderPath(from), rawHeaderPath(to), known);
    // Inside a hunk a fence must start its line: " ```js" is a context line of a Markdown file, not the diff's end.
    if (
      /^(`{3,}|~{3,})/.test(inDiff ? line : line.trim()) ||
      (!ctx.fence[0].startsWith("`") && (line.startsWith(ctx.fence[0]) || line.startsWith(ctx.fence[1])))
    ) {
      flush();
      inDiff = false;
    } else if (line.startsWith("--- ") && next.startsWith("+++ ") && headerHere(line, next)) {
      header(line, next);
      i++;
    } else if (line.startsWith("+++ ") && hunk.length === 0 && next.startsWith("@@")) {
      header(null, line); // `+++` without `---` (Aider's IndexError, PR #5369)
    } else if (line.startsWith("@@")) {
      flush();
      inDiff = true;
    } else if (GIT_META.test(line) || line.startsWith("\\ No newline")) {
      continue;
    } else if (inDiff && (line === "" || /^[ +-]/.test(line))) {
      hunk.push(line);
    } else {
      flush();
      inDiff = false;
    }
  }
  flush();
  for (const { index, path, lines: body } of created) {
    edits[index] = { kind: "patch-add", path, content: body.length ? `${body.join("\n")}\n` : "" };
  }
  return { edits, shell: [], failures };
}
