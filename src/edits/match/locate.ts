import type { MatchRung } from "../types.js";
import { ambiguous, splice, type Located } from "./located.js";
import { findKeyedWindows, findKeyedWindowsInText } from "./find-windows.js";
import { locateElision } from "./locate-elision.js";
import { locateSimilar } from "./locate-similar.js";
import { reindent } from "./reindent.js";
import { isBlank } from "./split-lines.js";

export type { Located } from "./located.js";
/** Re-exported for the udiff applier, which imports it from here. */
export { reindent } from "./reindent.js";

export interface LocateOptions {
  /** Opt-in similarity rung (docs/behaviour.md#extra-tolerant-rungs). */
  fuzzy?: boolean;
  /** The caller already found no exact match of the whole SEARCH (`replaceInText` searches the text for it first). */
  exactTried?: boolean;
  /** `file` as text, every line ending in "\n": lets the strict rungs search it instead of keying every line. */
  text?: string;
}

type Key = "exact" | "trailing" | "trim" | "inner";
const KEYS: Record<Key, (l: string) => string> = {
  exact: (l) => l,
  trailing: (l) => l.trimEnd(),
  trim: (l) => l.trim(),
  inner: (l) => {
    const t = l.trim();
    return /\s\s|[^\S ]/.test(t) ? t.replace(/\s+/g, " ") : t;
  },
};

/** The file keyed once per key for the whole walk (the leading-blank retry asks again under the same keys). */
function keyedFile(file: readonly string[], text: string | undefined) {
  const cache = new Map<Key, readonly string[]>();
  return (needle: readonly string[], key: Key, limit: number): number[] => {
    // Whitespace-collapsed keys are not substrings of their lines, so that rung keys the file.
    if (text !== undefined && key !== "inner")
      return findKeyedWindowsInText(text, file, needle.map(KEYS[key]), KEYS[key], limit);
    let hay = cache.get(key);
    if (!hay) cache.set(key, (hay = key === "exact" ? file : file.map(KEYS[key])));
    return findKeyedWindows(hay, needle.map(KEYS[key]), limit);
  };
}

/** Enough hits to list places in an "ambiguous" failure; the indent rung filters hits, so it looks further. */
const HIT_LIMIT = 10;
const INDENT_HIT_LIMIT = 1_000;

/**
 * Find the one place `search` stands in `file` and build the edited file, walking the ladder (docs/behaviour.md#rungs, docs/behaviour.md#extra-tolerant-rungs):
 * exact → trailing whitespace ignored → uniform indentation offset → without one leading blank line (Aider #25)
 * → `...` elision → whitespace normalised inside lines → similarity (opt-in). A rung that finds several places ends
 * the walk as `ambiguous`: we never edit the first of several matches (docs/behaviour.md#ambiguous-matches-are-refused), and a looser rung would only
 * find more. `search` must not be empty.
 */
export function locate(
  file: readonly string[],
  search: readonly string[],
  replace: readonly string[],
  options: LocateOptions = {},
): Located {
  const find = keyedFile(file, options.text);
  const strict = strictRungs(file, search, replace, find, options.exactTried === true);
  if (strict.kind !== "none") return strict;
  const trimmed = search.length > 2 && isBlank(search[0]!) ? search.slice(1) : null;
  if (trimmed) {
    const retry = strictRungs(file, trimmed, replace, find);
    if (retry.kind === "unique") return { ...retry, rung: "leading-blank" };
    if (retry.kind === "ambiguous") return { ...retry, rung: "leading-blank" };
  }
  const elided = locateElision(file, search, replace);
  if (elided.kind !== "none") return elided;
  for (const s of trimmed ? [search, trimmed] : [search]) {
    const inner = find(s, "inner", HIT_LIMIT);
    if (inner.length > 1) return ambiguous("inner-whitespace", inner);
    if (inner.length === 1) {
      const start = inner[0]!;
      const shifted = reindent(file.slice(start, start + s.length), s, replace) ?? replace;
      return splice(start, s.length, shifted, "inner-whitespace");
    }
  }
  return options.fuzzy ? locateSimilar(file, search, replace) : { kind: "none" };
}

/** Aider's `perfect_or_whitespace`, plus trailing whitespace: exact, trailing-whitespace, uniform indent offset. */
function strictRungs(
  file: readonly string[],
  search: readonly string[],
  replace: readonly string[],
  find: ReturnType<typeof keyedFile>,
  exactTried = false,
): Located {
  const simple: [MatchRung, Key][] = exactTried
    ? [["trailing-whitespace", "trailing"]]
    : [
        ["exact", "exact"],
        ["trailing-whitespace", "trailing"],
      ];
  for (const [rung, key] of simple) {
    const hits = find(search, key, HIT_LIMIT);
    if (hits.length === 1) return splice(hits[0]!, search.length, replace, rung);
    if (hits.length > 1) return ambiguous(rung, hits);
  }
  const indentHits: { start: number; replacement: string[] }[] = [];
  for (const start of find(search, "trim", INDENT_HIT_LIMIT)) {
    const replacement = reindent(file.slice(start, start + search.length), search, replace);
    if (replacement) indentHits.push({ start, replacement });
  }
  const [only, ...more] = indentHits;
  if (more.length > 0)
    return ambiguous(
      "indent",
      indentHits.map((h) => h.start),
    );
  if (only) return splice(only.start, search.length, only.replacement, "indent");
  return { kind: "none" };
}
