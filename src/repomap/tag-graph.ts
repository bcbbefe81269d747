import type { LexicalIndex, NamesPostings } from "./lexical-scores.js";
import { numberColumns, numberTags, type Numbered, type TagColumns } from "./tag-numbering.js";
import type { Tag } from "./types.js";

export type { TagColumns } from "./tag-numbering.js";

// Typed-array reads here end in `!`: every index is a loop bound taken from the arrays' own lengths, or an offset
// from the `*Start` / `items` arrays built together with the arrays they index, so each read is in bounds. These
// are the ranking's hot loops over typed arrays; a check per read would say nothing more.

/**
 * The request-independent part of the ranking (docs/behaviour.md#ranking): which files define and reference which names, as
 * the edges of the referencer → definer graph with everything of their weight that does not depend on the request.
 * It depends only on the tags (so on the files' contents), which is why it can be cached by the content state and
 * a warm build only applies the request's chat files and mentions to it. All plain arrays and typed arrays, so it
 * serialises cheaply.
 */
export interface TagGraph {
  /** Files, numbered as the ranking numbers them (edge sources first, in edge order, then targets). */
  nodes: string[];
  from: Int32Array;
  to: Int32Array;
  /** The (definer, name) pair each edge feeds. */
  pair: Int32Array;
  /** The identifier of each edge, or -1 for the fixed-weight (0.1) self-edge of an unreferenced definition. */
  ident: Int32Array;
  /** √(number of references from `from` to the identifier). */
  sqrtCount: Float64Array;
  /** Parallel edges share a slot (its source and target below): PageRank runs over slots with summed weights. */
  edgeSlot: Int32Array;
  slotFrom: Int32Array;
  slotTo: Int32Array;
  /**
   * Every defined name, in first-definition order, back to back: name k is `identText` from `identStart[k]` to
   * `identStart[k + 1]` (see {@link identName}). One string rather than tens of thousands keeps a warm build's
   * reading of the cache and its garbage collections short.
   */
  identText: string;
  identStart: Int32Array;
  /** A hash table of the identifiers, see {@link findIdent}. */
  identTable: Int32Array;
  /** {@link identMultiplier} of each identifier when the request does not, and does, mention it. */
  mulPlain: Float64Array;
  mulMentioned: Float64Array;
  /** Per identifier, its definers (graph nodes) as a slice of `definers`. */
  definerStart: Int32Array;
  definers: Int32Array;
  /** Per pair: its definer (graph node), its identifier, and its rows (sorted) as a slice of `pairLines`. */
  pairNode: Int32Array;
  pairIdent: Int32Array;
  pairLineStart: Int32Array;
  pairLines: Int32Array;
  /** Each pair's position in (path, name) order: ranking ties are broken by it. */
  pairTie: Int32Array;
  /**
   * Per node, the words (splitWords) of the names it defines and of the repository names it uses, as BM25 postings
   * for the request-aware ranking: computed with the graph and cached with it (see attachNamePostings), so a warm
   * build neither splits names nor indexes them again. Absent in a graph cached before it existed: then computed
   * and stored again.
   */
  namePostings?: NamesPostings;
  /**
   * The lexical index (name postings, plus the paths' postings) for the file list the graph was built for, cached
   * with it so a warm build only looks up the request's words (see attachLexicalIndex).
   */
  lexicalIndex?: LexicalIndex;
}

/** Above this many edges one identifier is treated as unreferenced (see buildTagGraph). */
const MAX_EDGES_PER_IDENT = 20_000;

/**
 * Build the graph from every file's tags (chat files included), in a fixed file order. Numbering and edge order
 * follow the order of the tags, so equal inputs give bit-identical ranks. Everything is numbered first (files and
 * names by first appearance), so the rest works on integer keys and typed arrays rather than maps of strings.
 */
export function buildTagGraph(tags: readonly Tag[]): TagGraph {
  return graphOf(numberTags(tags));
}

/**
 * {@link buildTagGraph} from each file's tag columns (as the cache's blobs hold them), in file order: the same graph
 * as from the files' tags in that order, without making an object per tag or looking each tag's name up.
 */
export function buildTagGraphFromColumns(files: readonly { relPath: string; columns: TagColumns }[]): TagGraph {
  return graphOf(numberColumns(files));
}

function graphOf(t: Numbered): TagGraph {
  const F = t.files.length;
  const pairs = numberPairs(t);
  const refs = countRefs(t, pairs.identOfName);
  const K = pairs.identNames.length;
  // Per identifier: its pairs (so its definers) in first-definition order, and its referencers likewise.
  const byIdent = groupBy(pairs.pairIdent, K);
  const refsByIdent = groupBy(refs.ident, K);
  const noRefs = refs.ident.length === 0;

  // How many edges each identifier gives: referencers × definers, or one self-edge per definer.
  const edgesOf = new Int32Array(K);
  let edgeCount = 0;
  for (let k = 0; k < K; k++) {
    const d = byIdent.start[k + 1]! - byIdent.start[k]!;
    const r = noRefs ? d : refsByIdent.start[k + 1]! - refsByIdent.start[k]!;
    // A name defined and used everywhere (`render`, `toString` across thousands of files) would need
    // definers × referencers edges — millions — while saying almost nothing (Aider weights it ×0.1 anyway).
    edgesOf[k] = r === 0 || d * r > MAX_EDGES_PER_IDENT ? -d : r * d;
    edgeCount += Math.abs(edgesOf[k]!);
  }
  const fromFile = new Int32Array(edgeCount);
  const toFile = new Int32Array(edgeCount);
  const pair = new Int32Array(edgeCount);
  const ident = new Int32Array(edgeCount);
  const sqrtCount = new Float64Array(edgeCount);
  let e = 0;
  for (let k = 0; k < K; k++) {
    const da = byIdent.start[k]!;
    const db = byIdent.start[k + 1]!;
    if (edgesOf[k]! < 0) {
      // Keeps never-referenced definitions in the graph, with a token weight.
      for (let i = da; i < db; i++, e++) {
        const p = byIdent.items[i]!;
        fromFile[e] = toFile[e] = pairs.pairFile[p]!;
        pair[e] = p;
        ident[e] = -1;
      }
      continue;
    }
    // A repo of definitions only (no query found references) still ranks: each definition refers to itself.
    const ra = noRefs ? da : refsByIdent.start[k]!;
    const rb = noRefs ? db : refsByIdent.start[k + 1]!;
    for (let j = ra; j < rb; j++) {
      const referencer = noRefs ? pairs.pairFile[byIdent.items[j]!] : refs.file[refsByIdent.items[j]!];
      const root = noRefs ? 1 : Math.sqrt(refs.count[refsByIdent.items[j]!]!);
      for (let i = da; i < db; i++, e++) {
        const p = byIdent.items[i]!;
        fromFile[e] = referencer!;
        toFile[e] = pairs.pairFile[p]!;
        pair[e] = p;
        ident[e] = k;
        sqrtCount[e] = root;
      }
    }
  }

  // Graph nodes: files in order of first appearance as an edge source, then as a target.
  const nodeOf = new Int32Array(F).fill(-1);
  const nodes: string[] = [];
  const number = (list: Int32Array): Int32Array =>
    list.map((f) => (nodeOf[f]! >= 0 ? nodeOf[f]! : (nodeOf[f] = nodes.push(t.files[f]!) - 1)));
  const from = number(fromFile);
  const to = number(toFile);
  const slots = mergeParallel(from, to, nodes.length);

  const identNames = pairs.identNames;
  const mulPlain = new Float64Array(K);
  const mulMentioned = new Float64Array(K);
  for (let k = 0; k < K; k++) {
    const definers = byIdent.start[k + 1]! - byIdent.start[k]!;
    mulPlain[k] = multiplier(identNames[k]!, false, definers);
    mulMentioned[k] = multiplier(identNames[k]!, true, definers);
  }
  const pairNode = Int32Array.from(pairs.pairFile, (f) => nodeOf[f]!);
  return {
    nodes,
    from,
    to,
    pair,
    ident,
    sqrtCount,
    ...slots,
    ...joinNames(identNames),
    identTable: identTable(identNames),
    mulPlain,
    mulMentioned,
    definerStart: byIdent.start,
    definers: Int32Array.from(byIdent.items, (p) => pairNode[p]!),
    pairNode,
    pairIdent: pairs.pairIdent,
    pairLineStart: pairs.lineStart,
    pairLines: pairs.lines,
    pairTie: pairTies(t.files, pairs.pairFile, pairs.pairIdent, identNames),
  };
}

/**
 * (definer, name) pairs numbered in order of first definition, identifiers (defined names) likewise, and each
 * pair's rows, sorted.
 */
function numberPairs(t: Numbered) {
  const F = t.files.length;
  const pairOf = new Map<number, number>();
  const identOfName = new Int32Array(t.names.length).fill(-1);
  const identNames: string[] = [];
  const pairFile: number[] = [];
  const pairIdent: number[] = [];
  const defPair: number[] = [];
  const defLine: number[] = [];
  for (let i = 0; i < t.file.length; i++) {
    if (t.def[i] !== 1) continue;
    const n = t.name[i]!;
    if (identOfName[n]! < 0) identOfName[n] = identNames.push(t.names[n]!) - 1;
    const key = n * F + t.file[i]!;
    let p = pairOf.get(key);
    if (p === undefined) {
      pairOf.set(key, (p = pairFile.push(t.file[i]!) - 1));
      pairIdent.push(identOfName[n]!);
    }
    defPair.push(p);
    defLine.push(t.line[i]!);
  }
  const byPair = groupBy(Int32Array.from(defPair), pairFile.length);
  const lines = Int32Array.from(byPair.items, (d) => defLine[d]!);
  for (let p = 0; p < pairFile.length; p++) {
    const a = byPair.start[p]!;
    const b = byPair.start[p + 1]!;
    if (b - a > 1) lines.subarray(a, b).sort();
  }
  return {
    identOfName,
    identNames,
    pairFile: Int32Array.from(pairFile),
    pairIdent: Int32Array.from(pairIdent),
    lineStart: byPair.start,
    lines,
  };
}

/** References to defined identifiers counted per (identifier, referencing file), in order of first reference. */
function countRefs(t: Numbered, identOfName: Int32Array) {
  const F = t.files.length;
  const slotOf = new Map<number, number>();
  const ident: number[] = [];
  const file: number[] = [];
  const count: number[] = [];
  for (let i = 0; i < t.file.length; i++) {
    if (t.def[i] === 1) continue;
    const k = identOfName[t.name[i]!]!;
    if (k < 0) continue;
    const key = k * F + t.file[i]!;
    const s = slotOf.get(key);
    if (s !== undefined) count[s]!++;
    else {
      slotOf.set(key, ident.length);
      ident.push(k);
      file.push(t.file[i]!);
      count.push(1);
    }
  }
  return { ident: Int32Array.from(ident), file: Int32Array.from(file), count: Int32Array.from(count) };
}

/** Item indices grouped by their key (0..keys-1), keeping their order within a key: a stable counting sort. */
function groupBy(keyOf: Int32Array, keys: number): { start: Int32Array; items: Int32Array } {
  const start = new Int32Array(keys + 1);
  for (const k of keyOf) start[k + 1]!++;
  for (let k = 0; k < keys; k++) start[k + 1]! += start[k]!;
  const next = start.slice(0, keys);
  const items = new Int32Array(keyOf.length);
  keyOf.forEach((k, i) => (items[next[k]!++] = i));
  return { start, items };
}

/** Parallel edges (same source and target) share a slot; PageRank needs only the slots, with summed weights. */
function mergeParallel(from: Int32Array, to: Int32Array, nodeCount: number) {
  const slotOf = new Map<number, number>();
  const edgeSlot = new Int32Array(from.length);
  const slotFrom: number[] = [];
  const slotTo: number[] = [];
  for (let e = 0; e < from.length; e++) {
    const key = from[e]! * nodeCount + to[e]!;
    let s = slotOf.get(key);
    if (s === undefined) {
      slotOf.set(key, (s = slotFrom.push(from[e]!) - 1));
      slotTo.push(to[e]!);
    }
    edgeSlot[e] = s;
  }
  return { edgeSlot, slotFrom: Int32Array.from(slotFrom), slotTo: Int32Array.from(slotTo) };
}

/** Each pair's position in (path, name) order; paths compared once per file, names only within a file. */
function pairTies(files: string[], pairFile: Int32Array, pairIdent: Int32Array, identNames: string[]): Int32Array {
  const byFile = groupBy(pairFile, files.length);
  const tie = new Int32Array(pairFile.length);
  let position = 0;
  for (const f of files.map((_, i) => i).sort((a, b) => cmp(files[a]!, files[b]!))) {
    const own = Array.from(byFile.items.subarray(byFile.start[f], byFile.start[f + 1]));
    own.sort((a, b) => cmp(identNames[pairIdent[a]!]!, identNames[pairIdent[b]!]!));
    for (const p of own) tie[p] = position++;
  }
  return tie;
}

/** How much an identifier says: mentioned ×10, long compound names ×10, `_private` ×0.1, defined in >5 files ×0.1. */
export function identMultiplier(ident: string, mentioned: ReadonlySet<string>, definerCount: number): number {
  return multiplier(ident, mentioned.has(ident), definerCount);
}

function multiplier(ident: string, mentioned: boolean, definerCount: number): number {
  let mul = 1;
  if (mentioned) mul *= 10;
  let letter = false;
  let upper = false;
  let lower = false;
  let joiner = false;
  for (let i = 0; i < ident.length; i++) {
    const c = ident.charCodeAt(i);
    if (c >= 65 && c <= 90) upper = letter = true;
    else if (c >= 97 && c <= 122) lower = letter = true;
    else if (c === 95 || c === 45) joiner = true; // _ or -
  }
  const compound = (joiner && letter) || (upper && lower);
  if (compound && ident.length >= 8) mul *= 10;
  if (ident.startsWith("_")) mul *= 0.1;
  if (definerCount > 5) mul *= 0.1;
  return mul;
}

/** How many identifiers `graph` has. */
export function identCount(graph: TagGraph): number {
  return graph.identStart.length - 1;
}

/** Identifier `k` of `graph`. */
export function identName(graph: TagGraph, k: number): string {
  return graph.identText.slice(graph.identStart[k], graph.identStart[k + 1]);
}

/** The index of identifier `name` in `graph`, or -1. */
export function findIdent(graph: TagGraph, name: string): number {
  const table = graph.identTable;
  const mask = table.length - 1;
  for (let slot = hashName(name) & mask; ; slot = (slot + 1) & mask) {
    const k = table[slot]!;
    if (k < 0) return -1;
    const start = graph.identStart[k]!;
    if (graph.identStart[k + 1]! - start === name.length && graph.identText.startsWith(name, start)) return k;
  }
}

function joinNames(names: readonly string[]): { identText: string; identStart: Int32Array } {
  const identStart = new Int32Array(names.length + 1);
  names.forEach((name, k) => (identStart[k + 1] = identStart[k]! + name.length));
  return { identText: names.join(""), identStart };
}

/**
 * An open-addressing hash table of the identifiers (slot → index, -1 empty), at most half full: finding a
 * mentioned name costs a hash and a probe or two, and building it costs far less than sorting the names. It is
 * stored with the graph, so a warm run does not rebuild it.
 */
function identTable(names: readonly string[]): Int32Array {
  let size = 16;
  while (size < 2 * names.length) size *= 2;
  const table = new Int32Array(size).fill(-1);
  const mask = size - 1;
  names.forEach((name, k) => {
    let slot = hashName(name) & mask;
    while (table[slot]! >= 0) slot = (slot + 1) & mask;
    table[slot] = k;
  });
  return table;
}

/** FNV-1a over UTF-16 code units. */
function hashName(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
