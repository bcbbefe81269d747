import { normalizeEditPath } from "../path-policy.js";
import { isFenceLine } from "./markers.js";

/**
 * The filename a line could be naming: `# foo.py`, `**foo.py**`, `` `foo.py`: ``, "```foo.py", or null.
 * (AIDER.md §2.1.1 strip_filename.)
 */
export function filenameCandidate(line: string, fenceOpen: string): string | null {
  const s = line.trim();
  if (s === "" || s === "...") return null;
  for (const fence of [fenceOpen, "```"]) {
    if (s.startsWith(fence)) {
      const rest = s.slice(fence.length).trim();
      return rest && /[./]/.test(rest) ? rest : null;
    }
  }
  const name = s.replace(/:+$/, "").replace(/^#+/, "").trim().replace(/^`+|`+$/g, "").replace(/^\*+|\*+$/g, "").replace(/^`+|`+$/g, "").trim();
  return name || null;
}

/**
 * Resolve the filename for a block from the (at most 3) lines before its HEAD marker, nearest first, looking past
 * a line only when it is a fence (so `path`, fence, HEAD and fence, `path`, HEAD both work). Prose is not a
 * filename (AIDER.md A.1): a candidate must be a known file, a known file's basename, or look like a path —
 * no spaces, and a `.` or `/` in it.
 */
export function findFilename(
  before: readonly string[],
  fenceOpen: string,
  known: { chatFiles: readonly string[]; repoFiles: readonly string[] },
): string | null {
  const candidates: string[] = [];
  for (let i = before.length - 1; i >= 0 && i >= before.length - 3; i--) {
    const line = before[i]!;
    const c = filenameCandidate(line, fenceOpen);
    if (c) candidates.push(normalizeEditPath(c));
    if (!isFenceLine(line, fenceOpen)) break;
  }
  const all = [...known.chatFiles, ...known.repoFiles];
  for (const c of candidates) if (all.includes(c)) return c;
  for (const c of candidates) {
    const byBase = known.chatFiles.filter((f) => f.split("/").pop() === c);
    if (byBase.length === 1) return byBase[0]!;
  }
  for (const c of candidates) if (!/\s/.test(c) && /[./]/.test(c) && !/^[.]+$/.test(c)) return c;
  return null;
}
