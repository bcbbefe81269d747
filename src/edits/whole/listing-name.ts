import { normalizeEditPath } from "../path-policy.js";
import type { ParseContext } from "../types.js";

/** Extensionless names that are real files, so a line holding only one of them is a filename, not prose. */
const BARE_FILE_NAMES = new Set([
  "Makefile",
  "Dockerfile",
  "LICENSE",
  "Gemfile",
  "Rakefile",
  "Procfile",
  "Jenkinsfile",
  "Vagrantfile",
  "Brewfile",
  "CODEOWNERS",
  "Containerfile",
  "Justfile",
]);

/**
 * Clean the line before a listing's fence the way models decorate filenames: `**a.txt**:` → `a.txt`,
 * `### a.txt` → `a.txt`, `` `a.txt`: `` → `a.txt`, `File: a.txt` → `a.txt`, `a.txt (updated):` → `a.txt`. Aider strips `*` before the colon and
 * so names the file `a.txt**` (docs/behaviour.md#aider-bugs-we-avoid (#11)); we repeat the strip until nothing changes. Over 250 characters
 * is prose, not a name (Aider #1232).
 */
function cleanListingName(line: string): string {
  let s = line.trim();
  for (;;) {
    const next = s
      .replace(/^#+\s*/, "")
      .replace(/^(file ?name|file|path)\s*:\s*/i, "")
      .replace(/:+$/, "")
      .replace(/\s+\((new|updated|modified|changed|complete|full|entire)\b[^)]*\)$/i, "")
      .replace(/^[*_`]+|[*_`]+$/g, "")
      .trim();
    if (next === s) break;
    s = next;
  }
  return s.length > 250 ? "" : s;
}

// Letters, digits and the punctuation of real paths: `foo.bar()` or `a=b` in prose is code, not a filename.
const isPathLike = (name: string): boolean =>
  /^[\p{L}\p{N}_./@+~-]+$/u.test(name) && (/[./]/.test(name) || BARE_FILE_NAMES.has(name)) && !/^[.]+$/.test(name);

const baseName = (p: string): string => p.slice(p.lastIndexOf("/") + 1);

/**
 * Which file the line before a listing names, or null when it names none (prose, blank, a closing fence).
 * Chat files win, then repository files; a name whose basename is a chat file maps to it (Aider's bogus-folder
 * fix, docs/behaviour.md#whole-files), and a bare basename maps to the one chat file that has it (so `greet.ts` finds `src/greet.ts`).
 * Prose like "Here is the new file:" is not a name (docs/behaviour.md#prose-is-not-a-filename), but one backticked path inside it is.
 */
export function listingName(line: string, ctx: Pick<ParseContext, "chatFiles" | "repoFiles">): string | null {
  const known = (p: string) => ctx.chatFiles.includes(p) || (ctx.repoFiles?.includes(p) ?? false);
  const cleaned = cleanListingName(line);
  const candidates = [cleaned];
  const ticked = [...line.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!).filter(isPathLike);
  const [onlyTicked, ...moreTicked] = ticked;
  if (onlyTicked !== undefined && moreTicked.length === 0) candidates.push(onlyTicked);
  for (const raw of candidates) {
    if (!raw) continue;
    const name = normalizeEditPath(raw);
    if (known(name)) return name;
    const base = baseName(name);
    if (name.includes("/") && ctx.chatFiles.includes(base) && !ctx.repoFiles?.includes(name)) return base;
    if (!name.includes("/")) {
      const [same, ...others] = ctx.chatFiles.filter((f) => baseName(f) === name);
      if (same !== undefined && others.length === 0) return same;
    }
    if (isPathLike(name)) return name;
  }
  return null;
}

/**
 * A chat file mentioned in backticks on a prose line ("Update `b.txt`:"): Aider's `saw_fname` fallback for a
 * listing whose own filename line is missing (docs/behaviour.md#whole-files). The last mention on the line wins.
 */
export function mentionedChatFile(line: string, chatFiles: readonly string[]): string | null {
  let found: string | null = null;
  for (const word of line.split(/\s+/)) {
    const m = /^`([^`]+)`$/.exec(word.replace(/[.:,;!]+$/, ""));
    if (!m) continue;
    const p = normalizeEditPath(m[1]!);
    if (chatFiles.includes(p)) found = p;
  }
  return found;
}
