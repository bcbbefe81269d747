import MiniSearch from "minisearch";
import { splitWords } from "./split-words.js";

/** One file as the lexical ranking sees it: its path and the words of the names it defines and uses. */
export interface LexicalDoc {
  relPath: string;
  /** Distinct words (see {@link namesWords}) of the names the file defines (functions, classes, …), from its tags. */
  defs: string;
  /** Distinct words of the names the file uses that some file of the repository defines. */
  refs: string;
}

/**
 * How much each field counts. A word in the path (`src/jobs/retry-queue.ts`) says most about what the file is
 * for, a defined name almost as much; names a file merely uses are weak evidence.
 */
export const FIELD_BOOST = { path: 3, defs: 2, refs: 0.5 } as const;

/** Most query words kept: a long issue body must not make every file relevant (and the search slow). */
const MAX_QUERY_WORDS = 64;

interface IndexedDoc {
  id: number;
  path: string;
  defs: string;
  refs: string;
}

/**
 * BM25 relevance (MiniSearch's BM25+) of each file to a request: the request's words against the words of the files'
 * paths, defined names and used names (split at camelCase / snake_case, stemmed: see splitWords), fields weighted
 * by {@link FIELD_BOOST}. Scores are scaled so the best file has 1; files that share no word with the request are
 * absent. Deterministic: same docs and text, same scores. Example:
 * `lexicalScores([{ relPath: "src/retry.ts", defs: namesWords(["retryLater"]), refs: "" }], "retry failed uploads")` →
 * `Map { "src/retry.ts" => 1 }`.
 */
export function lexicalScores(docs: readonly LexicalDoc[], text: string): Map<string, number> {
  const query = queryWords(text);
  const scores = new Map<string, number>();
  if (query.length === 0 || docs.length === 0) return scores;
  const wanted = new Set(query);
  const index = new MiniSearch<IndexedDoc>({
    fields: ["path", "defs", "refs"],
    // Words are split and stemmed beforehand: MiniSearch only cuts at the spaces. It counts a field's length in
    // distinct words, and only the request's words need to be in the index: the scores are those of a full index.
    // A names field without any of the request's words needs only its length, given as shared placeholders (no
    // split, far less garbage); `includes` may let a field through that has none, which costs a split only.
    tokenize: (s, field) => (!s ? [] : field !== "defs" && field !== "refs" ? s.split(" ") : query.some((w) => s.includes(w)) ? s.split(" ") : placeholders(wordCount(s))),
    processTerm: (t) => (wanted.has(t) ? t : null),
    searchOptions: { boost: { ...FIELD_BOOST }, combineWith: "OR", prefix: false, fuzzy: false },
  });
  const indexed: IndexedDoc[] = docs.map((d, id) => ({ id, path: nameWords(d.relPath), defs: d.defs, refs: d.refs }));
  index.addAll(indexed.filter((d) => d.path || d.defs || d.refs));
  let best = 0;
  const raw = new Map<number, number>();
  for (const hit of index.search(query.join(" "))) {
    const id = hit.id as number;
    raw.set(id, hit.score);
    best = Math.max(best, hit.score);
  }
  if (!(best > 0)) return scores;
  // Files in input order, so equal scores keep a stable order downstream.
  for (const [id, score] of [...raw].sort((a, b) => a[0] - b[0])) scores.set(docs[id].relPath, score / best);
  return scores;
}

/** The distinct words of some names (splitWords of each), space-separated, as {@link LexicalDoc} holds them. */
export function namesWords(names: readonly string[]): string {
  const words = new Set<string>();
  for (const n of names) {
    const w = nameWords(n);
    if (w) for (const word of w.split(" ")) words.add(word);
  }
  return [...words].join(" ");
}

function wordCount(s: string): number {
  let n = 1;
  for (let i = s.indexOf(" "); i >= 0; i = s.indexOf(" ", i + 1)) n++;
  return n;
}

/** `n` distinct strings that are never words (splitWords yields no control characters), shared between calls. */
const PLACEHOLDERS: string[] = [];
const PLACEHOLDER_LISTS = new Map<number, string[]>();

function placeholders(n: number): string[] {
  let list = PLACEHOLDER_LISTS.get(n);
  if (!list) {
    while (PLACEHOLDERS.length < n) PLACEHOLDERS.push(`\u0000${PLACEHOLDERS.length}`);
    if (PLACEHOLDER_LISTS.size >= 4096) PLACEHOLDER_LISTS.clear();
    PLACEHOLDER_LISTS.set(n, (list = PLACEHOLDERS.slice(0, n)));
  }
  return list;
}

/** A name's words, joined by spaces; names recur across files and builds, so each is split once per process. */
const NAME_WORDS = new Map<string, string>();
const MAX_NAMES = 200_000;

function nameWords(name: string): string {
  let w = NAME_WORDS.get(name);
  if (w === undefined) {
    w = splitWords(name).join(" ");
    if (NAME_WORDS.size >= MAX_NAMES) NAME_WORDS.clear();
    NAME_WORDS.set(name, w);
  }
  return w;
}

/** The request's distinct words, in order of first use, at most {@link MAX_QUERY_WORDS}. */
function queryWords(text: string): string[] {
  return [...new Set(splitWords(text))].slice(0, MAX_QUERY_WORDS);
}
