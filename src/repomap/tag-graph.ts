import type { Tag } from "./types.js";

/**
 * The request-independent part of the ranking (AIDER.md §5.4): which files define and reference which names, as
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
  /** Every defined name, in first-definition order. */
  identNames: string[];
  /** Identifier indices in name order, to find a mentioned name without hashing every name. */
  identsByName: Int32Array;
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
}

/** Above this many edges one identifier is treated as unreferenced (see buildTagGraph). */
const MAX_EDGES_PER_IDENT = 20_000;

/**
 * Build the graph from every file's tags (chat files included), in a fixed file order. Numbering and edge order
 * follow the order of the tags, so equal inputs give bit-identical ranks.
 */
export function buildTagGraph(tags: readonly Tag[]): TagGraph {
  // Each (definer, name) pair is numbered once, in order of its first definition.
  const pairs: { relPath: string; name: string; lines: number[] }[] = [];
  const defines = new Map<string, Map<string, number>>();
  let references = new Map<string, Map<string, number>>();
  for (const t of tags) {
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

  const from: string[] = [];
  const to: string[] = [];
  const pair: number[] = [];
  const ident: number[] = [];
  const sqrtCount: number[] = [];
  const identNames: string[] = [];
  const mulPlain: number[] = [];
  const mulMentioned: number[] = [];
  const identOf = new Map<string, number>();
  for (const [name, definers] of defines) {
    const k = identNames.push(name) - 1;
    identOf.set(name, k);
    mulPlain.push(identMultiplier(name, new Set(), definers.size));
    mulMentioned.push(identMultiplier(name, new Set([name]), definers.size));
    const refs = references.get(name);
    // A name defined and used everywhere (`render`, `toString` across thousands of files) would need
    // definers × referencers edges — millions — while saying almost nothing (Aider weights it ×0.1 anyway).
    if (!refs || definers.size * refs.size > MAX_EDGES_PER_IDENT) {
      // Keeps never-referenced definitions in the graph, with a token weight.
      for (const [d, p] of definers) {
        from.push(d);
        to.push(d);
        pair.push(p);
        ident.push(-1);
        sqrtCount.push(0);
      }
      continue;
    }
    for (const [referencer, count] of refs) {
      const root = Math.sqrt(count);
      for (const [d, p] of definers) {
        from.push(referencer);
        to.push(d);
        pair.push(p);
        ident.push(k);
        sqrtCount.push(root);
      }
    }
  }

  const nodeOf = new Map<string, number>();
  const nodes: string[] = [];
  const id = (f: string): number => {
    let i = nodeOf.get(f);
    if (i === undefined) nodeOf.set(f, (i = nodes.push(f) - 1));
    return i;
  };
  const fromIds = Int32Array.from(from, id);
  const toIds = Int32Array.from(to, id);

  const definerStart = new Int32Array(identNames.length + 1);
  const definerList: number[] = [];
  identNames.forEach((name, k) => {
    definerStart[k] = definerList.length;
    for (const f of (defines.get(name) as Map<string, number>).keys()) definerList.push(id(f));
  });
  definerStart[identNames.length] = definerList.length;

  const pairLineStart = new Int32Array(pairs.length + 1);
  const pairLines: number[] = [];
  pairs.forEach((p, i) => {
    pairLineStart[i] = pairLines.length;
    pairLines.push(...p.lines.sort((a, b) => a - b));
  });
  pairLineStart[pairs.length] = pairLines.length;
  // (path, name) order; paths are compared once, as ranks, since thousands of pairs share each path.
  const pathRank = new Map([...new Set(pairs.map((p) => p.relPath))].sort(cmp).map((f, i) => [f, i]));
  const pairPath = Int32Array.from(pairs, (p) => pathRank.get(p.relPath) as number);
  const byName = pairs.map((_, i) => i).sort((a, b) => pairPath[a] - pairPath[b] || cmp(pairs[a].name, pairs[b].name));
  const pairTie = new Int32Array(pairs.length);
  byName.forEach((p, position) => (pairTie[p] = position));

  return {
    nodes,
    from: fromIds,
    to: toIds,
    pair: Int32Array.from(pair),
    ident: Int32Array.from(ident),
    sqrtCount: Float64Array.from(sqrtCount),
    identNames,
    identsByName: Int32Array.from(identNames.map((_, k) => k).sort((a, b) => cmp(identNames[a], identNames[b]))),
    mulPlain: Float64Array.from(mulPlain),
    mulMentioned: Float64Array.from(mulMentioned),
    definerStart,
    definers: Int32Array.from(definerList),
    pairNode: Int32Array.from(pairs, (p) => id(p.relPath)),
    pairIdent: Int32Array.from(pairs, (p) => identOf.get(p.name) as number),
    pairLineStart,
    pairLines: Int32Array.from(pairLines),
    pairTie,
  };
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

/** The index of identifier `name` in `graph`, or -1. */
export function findIdent(graph: TagGraph, name: string): number {
  let lo = 0;
  let hi = graph.identsByName.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const k = graph.identsByName[mid];
    const c = cmp(graph.identNames[k], name);
    if (c === 0) return k;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
