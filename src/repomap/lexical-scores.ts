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
 * One names field (defined or used names) of every document, as postings: each document's length in distinct
 * words, and for each word the documents holding it (ascending). Built once per graph and cached with it, so a
 * request only looks up its own few words.
 */
export interface FieldPostings {
  length: Int32Array;
  docs: Map<string, Int32Array>;
}

/** The names fields of every document (graph node, or LexicalDoc), as postings. */
export interface NamesPostings {
  defs: FieldPostings;
  refs: FieldPostings;
}

/**
 * How much each field counts. A word in the path (`src/jobs/retry-queue.ts`) says most about what the file is
 * for, a defined name almost as much; names a file merely uses are weak evidence.
 */
export const FIELD_BOOST = { path: 3, defs: 2, refs: 0.5 } as const;

/** BM25+ parameters (those of MiniSearch, which this ranking first used: the same scores). */
const BM25 = { k: 1.2, b: 0.7, d: 0.5 } as const;

/** Most query words kept: a long issue body must not make every file relevant (and the search slow). */
const MAX_QUERY_WORDS = 64;

/**
 * BM25+ relevance of each file to a request: the request's words against the words of the files' paths, defined
 * names and used names (split at camelCase / snake_case, stemmed: see splitWords), fields weighted by
 * {@link FIELD_BOOST}. Scores are scaled so the best file has 1; files that share no word with the request are
 * absent. Deterministic: same docs and text, same scores. Example:
 * `lexicalScores([{ relPath: "src/retry.ts", defs: namesWords(["retryLater"]), refs: "" }], "retry failed uploads")` →
 * `Map { "src/retry.ts" => 1 }`.
 */
export function lexicalScores(docs: readonly LexicalDoc[], text: string): Map<string, number> {
  const split = (s: string): string[] => (s ? s.split(" ") : []);
  const names = {
    defs: fieldPostings(docs.map((d) => split(d.defs))),
    refs: fieldPostings(docs.map((d) => split(d.refs))),
  };
  return scoreLexically(
    prepareLexical(
      docs.map((d) => d.relPath),
      (i) => i,
      names,
    ),
    text,
  );
}

/**
 * The documents of {@link scoreLexically}, prepared once for a list of files (and cached by the caller with the
 * graph): which files are indexed (any word in any field), each field's mean length, and the paths' postings.
 */
export interface LexicalIndex {
  files: readonly string[];
  names: NamesPostings;
  /** Files indexed. */
  count: number;
  avg: { path: number; defs: number; refs: number };
  /** Per file, its document of `names` (−1 for none) and its path's length in distinct words. */
  nameDoc: Int32Array;
  pathLength: Int32Array;
  /** Per names document, the indexed file holding it. */
  docFile: Map<number, number>;
  /** Per path word, the indexed files whose path holds it and how often. */
  paths: Map<string, { files: number[]; tf: number[] }>;
}

/**
 * Prepare `files` for {@link scoreLexically}: `docOf(i)` is the document of `names` holding the names of `files[i]`
 * (−1 for none). Files are distinct.
 */
export function prepareLexical(
  files: readonly string[],
  docOf: (i: number) => number,
  names: NamesPostings,
): LexicalIndex {
  const n = files.length;
  const nameDoc = new Int32Array(n);
  const docFile = new Map<number, number>();
  const pathLength = new Int32Array(n);
  const paths = new Map<string, { files: number[]; tf: number[] }>();
  let count = 0;
  // Running means, updated as MiniSearch updates them (the same rounding, so the same scores).
  const avg = { path: 0, defs: 0, refs: 0 };
  for (const [i, file] of files.entries()) {
    const doc = docOf(i);
    nameDoc[i] = doc;
    const words = pathWords(file);
    // A document the postings do not hold has no words.
    const defs = names.defs.length[doc] ?? 0;
    const refs = names.refs.length[doc] ?? 0;
    if (words.tokens.length === 0 && defs === 0 && refs === 0) continue;
    if (doc >= 0) docFile.set(doc, i);
    pathLength[i] = words.distinct;
    avg.path = (avg.path * count + words.distinct) / (count + 1);
    avg.defs = (avg.defs * count + defs) / (count + 1);
    avg.refs = (avg.refs * count + refs) / (count + 1);
    count++;
    for (const [w, tf] of words.frequency) {
      let list = paths.get(w);
      if (!list) paths.set(w, (list = { files: [], tf: [] }));
      list.files.push(i);
      list.tf.push(tf);
    }
  }
  return { files, names, count, avg, nameDoc, pathLength, docFile, paths };
}

/**
 * BM25+ scores of the prepared files for a request (see {@link lexicalScores}). Only the request's words are looked
 * up: the cost is that of their matches. Scores are those MiniSearch gives over the indexed files (per field, k 1.2,
 * b 0.7, d 0.5, a field's length in distinct words, the sum over words and fields times the number of the
 * request's words matched).
 */
export function scoreLexically(index: LexicalIndex, text: string): Map<string, number> {
  const query = queryWords(text);
  const scores = new Map<string, number>();
  const { files, names, count, avg, nameDoc, pathLength, docFile } = index;
  if (query.length === 0 || count === 0) return scores;
  const bm25 = (tf: number, matching: number, length: number, average: number): number =>
    Math.log(1 + (count - matching + 0.5) / (matching + 0.5)) *
    (BM25.d + (tf * (BM25.k + 1)) / (tf + BM25.k * (1 - BM25.b + (BM25.b * length) / average)));
  // Per file touched: its sum over words, its score for the current word, and how many words it matched.
  const sum = new Map<number, number>();
  const matched = new Map<number, number>();
  const termScore = new Map<number, number>();
  const touch = (i: number, v: number): void => void termScore.set(i, (termScore.get(i) ?? 0) + v);
  for (const word of query) {
    termScore.clear();
    const inPath = index.paths.get(word);
    if (inPath)
      inPath.files.forEach((i, j) =>
        touch(i, FIELD_BOOST.path * bm25(inPath.tf[j] ?? 0, inPath.files.length, pathLength[i] ?? 0, avg.path)),
      );
    for (const field of ["defs", "refs"] as const) {
      const holders = filesHolding(names[field].docs.get(word), docFile);
      for (const i of holders)
        touch(i, FIELD_BOOST[field] * bm25(1, holders.length, names[field].length[nameDoc[i] ?? -1] ?? 0, avg[field]));
    }
    for (const [i, v] of termScore) {
      sum.set(i, (sum.get(i) ?? 0) + v);
      matched.set(i, (matched.get(i) ?? 0) + 1);
    }
  }
  let best = 0;
  for (const [i, v] of sum) best = Math.max(best, v * (matched.get(i) ?? 0));
  if (!(best > 0)) return scores;
  // Files in input order, so equal scores keep a stable order downstream.
  for (const [i, v] of [...sum].sort(([a], [b]) => a - b)) {
    const file = files[i];
    if (file !== undefined) scores.set(file, (v * (matched.get(i) ?? 0)) / best);
  }
  return scores;
}

/** The indexed files holding a names document of `docs` (files are distinct: a document is one file's). */
function filesHolding(docs: Int32Array | undefined, docFile: ReadonlyMap<number, number>): number[] {
  const out: number[] = [];
  if (!docs) return out;
  for (const doc of docs) {
    const i = docFile.get(doc);
    if (i !== undefined) out.push(i);
  }
  return out;
}

/**
 * Postings of one names field, from each document's distinct words. Example:
 * `fieldPostings([["retry", "delay"], ["retry"]]).docs.get("retry")` → Int32Array [0, 1].
 */
export function fieldPostings(words: readonly (readonly string[])[]): FieldPostings {
  const length = new Int32Array(words.length);
  const lists = new Map<string, number[]>();
  words.forEach((ws, doc) => {
    const distinct = new Set(ws);
    length[doc] = distinct.size;
    for (const w of distinct) {
      const list = lists.get(w);
      if (list) list.push(doc);
      else lists.set(w, [doc]);
    }
  });
  const docs = new Map<string, Int32Array>();
  for (const [w, list] of lists) docs.set(w, Int32Array.from(list));
  return { length, docs };
}

/** The distinct words of some names (splitWords of each), space-separated, as {@link LexicalDoc} holds them. */
export function namesWords(names: readonly string[]): string {
  return namesWordList(names).join(" ");
}

/** The distinct words of some names (splitWords of each), in order of first appearance. */
export function namesWordList(names: readonly string[]): string[] {
  const words = new Set<string>();
  for (const n of names) {
    const w = nameWords(n);
    if (w) for (const word of w.split(" ")) words.add(word);
  }
  return [...words];
}

/** A path's words: all of them, how many distinct, and each one's frequency. */
interface PathWords {
  tokens: readonly string[];
  distinct: number;
  frequency: ReadonlyMap<string, number>;
}

/** Words of paths seen, shared by every build of the process (paths recur build after build). */
const PATH_WORDS = new Map<string, PathWords>();
const MAX_PATHS = 200_000;

function pathWords(relPath: string): PathWords {
  let words = PATH_WORDS.get(relPath);
  if (words === undefined) {
    const w = nameWords(relPath);
    const tokens = w ? w.split(" ") : [];
    const frequency = new Map<string, number>();
    for (const t of tokens) frequency.set(t, (frequency.get(t) ?? 0) + 1);
    words = { tokens, distinct: frequency.size, frequency };
    if (PATH_WORDS.size >= MAX_PATHS) PATH_WORDS.clear();
    PATH_WORDS.set(relPath, words);
  }
  return words;
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
