import { pageRank } from "./pagerank.js";
import type { RankedEntry, Tag } from "./types.js";

export interface RankInput {
  /** Tags of every parsed file, chat files included (their references steer the ranking). */
  tags: readonly Tag[];
  /** Every candidate file, with or without tags (chat files included or not: they are never listed). */
  files: readonly string[];
  chatFiles?: readonly string[];
  mentionedFiles?: readonly string[];
  mentionedIdents?: readonly string[];
}

/**
 * Aider's ranking (AIDER.md §5.4), pure: a graph with an edge referencer → definer per shared identifier, weighted
 * by how telling the identifier is, personalised PageRank towards chat and mentioned files, then each file's rank
 * spread over its out-edges onto (definer, identifier) pairs. Returns definitions best first (chat files left out),
 * then the remaining files: those in the graph by rank, then the rest in the given order.
 */
export function rankTags(input: RankInput): RankedEntry[] {
  const chat = new Set(input.chatFiles ?? []);
  const mentionedFiles = new Set(input.mentionedFiles ?? []);
  const idents = new Set(input.mentionedIdents ?? []);
  const allFiles = [...new Set([...input.files, ...chat])].sort();

  // Each (definer, name) pair is numbered once; its rows and its share of rank live at that index.
  const pairs: Pair[] = [];
  const defines = new Map<string, Map<string, number>>();
  let references = new Map<string, Map<string, number>>();
  for (const t of input.tags) {
    if (t.kind === "def") {
      let byFile = defines.get(t.name);
      if (!byFile) defines.set(t.name, (byFile = new Map()));
      const p = byFile.get(t.relPath);
      if (p === undefined) byFile.set(t.relPath, pairs.push({ relPath: t.relPath, name: t.name, lines: [t.line] }) - 1);
      else pairs[p].lines.push(t.line);
    } else {
      let m = references.get(t.name);
      if (!m) references.set(t.name, (m = new Map()));
      m.set(t.relPath, (m.get(t.relPath) ?? 0) + 1);
    }
  }
  // A repo of definitions only (no query found references) still ranks: each definition refers to itself.
  if (references.size === 0) {
    references = new Map([...defines].map(([name, fs]) => [name, new Map([...fs.keys()].map((f) => [f, 1]))]));
  }

  const edges = buildEdges(defines, references, chat, idents);
  const nodes = new Map<string, number>();
  const nodeNames: string[] = [];
  const id = (f: string): number => {
    let i = nodes.get(f);
    if (i === undefined) {
      i = nodeNames.push(f) - 1;
      nodes.set(f, i);
    }
    return i;
  };
  const from = edges.from.map(id);
  const to = edges.to.map(id);
  const personalization = personalize(nodeNames, allFiles, chat, mentionedFiles, idents, definersOfMentioned(defines, idents));
  const rank = pageRank({ nodeCount: nodeNames.length, from, to, weight: edges.weight }, { personalization });

  const outWeight = new Float64Array(nodeNames.length);
  const n = edges.weight.length;
  for (let i = 0; i < n; i++) outWeight[from[i]] += edges.weight[i];
  const pairRank = new Float64Array(pairs.length);
  for (let i = 0; i < n; i++) pairRank[edges.pair[i]] += (rank[from[i]] * edges.weight[i]) / outWeight[from[i]];
  // Best first; ties in reverse (path, name) order, as Aider's reverse sort of tuples does.
  const order = pairs.map((_, i) => i);
  order.sort((a, b) => pairRank[b] - pairRank[a] || cmp(pairs[b].relPath, pairs[a].relPath) || cmp(pairs[b].name, pairs[a].name));

  const out: RankedEntry[] = [];
  const listed = new Set<string>(chat);
  for (const i of order) {
    const { relPath, name, lines } = pairs[i];
    if (chat.has(relPath)) continue;
    for (const line of lines.sort((a, b) => a - b)) out.push({ relPath, name, line });
    listed.add(relPath);
  }
  const byRank = nodeNames.map((f, i) => [f, rank[i]] as const).sort((a, b) => b[1] - a[1]);
  for (const f of [...byRank.map(([name]) => name), ...input.files]) {
    if (listed.has(f)) continue;
    listed.add(f);
    out.push({ relPath: f });
  }
  return out;
}

/** Above this many edges one identifier is treated as unreferenced (see buildEdges). */
const MAX_EDGES_PER_IDENT = 20_000;

interface Pair {
  relPath: string;
  name: string;
  lines: number[];
}

/** Edges as parallel arrays (tens of thousands in a big repo); `pair` says which definition an edge feeds. */
interface Edges {
  from: string[];
  to: string[];
  weight: number[];
  pair: number[];
}

function buildEdges(
  defines: Map<string, Map<string, number>>,
  references: Map<string, Map<string, number>>,
  chat: Set<string>,
  mentioned: Set<string>,
): Edges {
  const edges: Edges = { from: [], to: [], weight: [], pair: [] };
  const add = (from: string, to: string, weight: number, pair: number): void => {
    edges.from.push(from);
    edges.to.push(to);
    edges.weight.push(weight);
    edges.pair.push(pair);
  };
  for (const [ident, definers] of defines) {
    const refs = references.get(ident);
    // A name defined and used everywhere (`render`, `toString` across thousands of files) would need
    // definers × referencers edges — millions — while saying almost nothing (Aider weights it ×0.1 anyway).
    if (!refs || definers.size * refs.size > MAX_EDGES_PER_IDENT) {
      // Keeps never-referenced definitions in the graph, with a token weight.
      for (const [d, pair] of definers) add(d, d, 0.1, pair);
      continue;
    }
    const mul = identMultiplier(ident, mentioned, definers.size);
    for (const [referencer, count] of refs) {
      const w = mul * (chat.has(referencer) ? 50 : 1) * Math.sqrt(count);
      for (const [d, pair] of definers) add(referencer, d, w, pair);
    }
  }
  return edges;
}

/** How much an identifier says: mentioned ×10, long compound names ×10, `_private` ×0.1, defined in >5 files ×0.1. */
export function identMultiplier(ident: string, mentioned: ReadonlySet<string>, definerCount: number): number {
  let mul = 1;
  if (mentioned.has(ident)) mul *= 10;
  const letter = /[A-Za-z]/.test(ident);
  const compound =
    (ident.includes("_") && letter) || (ident.includes("-") && letter) || (/[A-Z]/.test(ident) && /[a-z]/.test(ident));
  if (compound && ident.length >= 8) mul *= 10;
  if (ident.startsWith("_")) mul *= 0.1;
  if (definerCount > 5) mul *= 0.1;
  return mul;
}

function personalize(
  nodeNames: string[],
  allFiles: string[],
  chat: Set<string>,
  mentionedFiles: Set<string>,
  idents: Set<string>,
  definesMentioned: Set<string>,
): number[] | undefined {
  const unit = 100 / Math.max(1, allFiles.length);
  let any = false;
  const values = nodeNames.map((f) => {
    let pers = chat.has(f) ? unit : 0;
    if (mentionedFiles.has(f)) pers = Math.max(pers, unit);
    const base = f.split("/").pop() ?? f;
    const parts = [...f.split("/"), base, base.replace(/\.[^.]*$/, "")];
    if (parts.some((p) => idents.has(p))) pers += unit;
    if (definesMentioned.has(f)) pers += unit;
    if (pers > 0) any = true;
    return pers;
  });
  // Aider passes no personalization when no file earns any, and falls back to none when the files that do are all
  // outside the graph: both come down to plain PageRank.
  return any ? values : undefined;
}

/**
 * Files defining a mentioned identifier (one defined in at most 5 files). Not in Aider, where a mention only
 * re-weights edges, so "fix park_car" cannot lift a file whose `park_car` is only used inside it.
 */
function definersOfMentioned(defines: Map<string, Map<string, number>>, idents: Set<string>): Set<string> {
  const out = new Set<string>();
  for (const ident of idents) {
    const definers = defines.get(ident);
    if (definers && definers.size <= 5) for (const f of definers.keys()) out.add(f);
  }
  return out;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
