import { normalizeEditPath } from "../path-policy.js";
import { getCloseMatches } from "../sequence-matcher.js";
import { isFenceLine } from "./markers.js";

export interface KnownFiles {
  chatFiles: readonly string[];
  repoFiles: readonly string[];
}

/**
 * The filename a line could be naming (docs/behaviour.md#edit-blocks `strip_filename`): `# foo.py`, `**foo.py**`,
 * `` `foo.py`: ``, "```foo.py", "```python foo.py" (the last word), "File: foo.py"; null for a blank line or `...`.
 */
function filenameCandidate(line: string, fenceOpen: string): string | null {
  const s = line.trim();
  if (s === "" || s === "...") return null;
  for (const fence of [fenceOpen, "```"]) {
    if (!s.startsWith(fence)) continue;
    const words = s.slice(fence.length).replace(/^`+/, "").trim().split(/\s+/);
    // "```ts:src/x.ts" names src/x.ts.
    const last = (words[words.length - 1] ?? "").replace(/^[A-Za-z0-9_+-]+:(?=[^/\\])/, "");
    return /[./]/.test(last) ? last : null;
  }
  const name = undecorate(undecorate(s).replace(/^(?:file ?name|file|path)\s*:\s*/i, ""));
  return name || null;
}

/** `## **`foo.py`**:` → `foo.py`. */
function undecorate(s: string): string {
  return s
    .replace(/:+$/, "")
    .replace(/^#+/, "")
    .trim()
    .replace(/^[*_`]+|[*_`]+$/g, "")
    .replace(/:+$/, "")
    .replace(/^[*_`]+|[*_`]+$/g, "")
    .trim();
}

/** Looks like a path: no whitespace, a `.` or `/` in it, and not only dots (docs/behaviour.md#prose-is-not-a-filename). */
export const looksLikePath = (c: string): boolean => !/\s/.test(c) && /[./]/.test(c) && !/^[./]+$/.test(c);

/**
 * Resolve a block's filename from the (at most 3) lines before its SEARCH marker, nearest first, looking past a
 * line only when it is a fence: so `path`/fence/HEAD (`diff`), fence/`path`/HEAD (`diff-fenced`) and
 * `path`/fence/fence+lang/HEAD (DeepSeek) all work. Ranking as Aider's: a known file, the basename of one chat
 * file, a close match (ratio ≥ 0.8) of a chat file, then any path-like candidate. Prose is never a filename
 * (docs/behaviour.md#prose-is-not-a-filename). For a new file (empty SEARCH) only the first and last rules apply, so a new `utils.py` is not
 * appended to an existing `src/utils.py` (Aider #2258).
 */
export function findFilename(
  before: readonly string[],
  fenceOpen: string,
  known: KnownFiles,
  isNewFile: boolean,
): string | null {
  const candidates: string[] = [];
  for (const line of before.slice(-3).reverse()) {
    const c = filenameCandidate(line, fenceOpen);
    if (c) candidates.push(normalizeEditPath(c));
    if (!isFenceLine(line, fenceOpen)) break;
  }
  const all = new Set([...known.chatFiles, ...known.repoFiles]);
  for (const c of candidates) if (all.has(c)) return c;
  if (!isNewFile) {
    for (const c of candidates) {
      const [byBase, ...others] = known.chatFiles.filter((f) => f.split("/").pop() === c);
      if (byBase !== undefined && others.length === 0) return byBase;
    }
    for (const c of candidates) {
      if (!looksLikePath(c)) continue;
      const [close] = getCloseMatches(c, known.chatFiles, 1, 0.8);
      if (close !== undefined) return close;
    }
  }
  return candidates.find(looksLikePath) ?? null;
}
