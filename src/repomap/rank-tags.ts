import { pageRank } from "./pagerank.js";
import { lazyOrder } from "./lazy-order.js";
import { buildTagGraph, findIdent, identCount, identName, type TagGraph } from "./tag-graph.js";
import type { RankedEntry, RankedSource, Tag } from "./types.js";

// Typed-array reads here end in `!`: every index is a loop bound taken from the arrays' own lengths, or an offset
// from the `*Start` / `items` arrays built together with the arrays they index, so each read is in bounds. These
// are the ranking's hot loops over typed arrays; a check per read would say nothing more.

export { identMultiplier } from "./tag-graph.js";

export interface RankInput {
  /** Tags of every parsed file, chat files included (their references steer the ranking). */
  tags: readonly Tag[];
  /** Every candidate file, with or without tags (chat files included or not: they are never listed). */
  files: readonly string[];
  chatFiles?: readonly string[];
  mentionedFiles?: readonly string[];
  mentionedIdents?: readonly string[];
  /**
   * Each file's relevance to this request (see fuseRelevance; best 1, absent for none). Absent or empty, the
   * ranking is Aider's. Otherwise relevance personalises PageRank, lifts the file's definitions, and the most
   * relevant files come first, each with its best definition, so a map of any budget shows as many of them as fit.
   */
  relevance?: ReadonlyMap<string, number>;
}

/** Relevance added to a file's personalisation, in units of the chat files' share. */
const RELEVANCE_PERSONALIZATION = 2;
/** A definition's rank is multiplied by 1 + this × its file's relevance. */
const RELEVANCE_LIFT = 4;
/** Files at least this relevant (of the best's 1) come first, at most HEAD_FILES of them. */
const HEAD_MIN = 0.2;
const HEAD_FILES = 60;

/**
 * Aider's ranking (docs/behaviour.md#ranking), pure: a graph with an edge referencer → definer per shared identifier, weighted
 * by how telling the identifier is, personalised PageRank towards chat and mentioned files, then each file's rank
 * spread over its out-edges onto (definer, identifier) pairs. Returns definitions best first (chat files left out),
 * then the remaining files: those in the graph by rank, then the rest in the given order.
 */
export function rankTags(input: RankInput): RankedEntry[] {
  return rankGraph(buildTagGraph(input.tags), input);
}

/** What a request brings to the ranking of a {@link TagGraph}. */
export type RankRequest = Omit<RankInput, "tags">;

/** The ranked entries, read lazily, and every ranked file in order of first appearance (chat files left out). */
export interface Ranking extends RankedSource {
  files: string[];
}

/** {@link rankTags} on a prebuilt graph, as a plain array. */
export function rankGraph(graph: TagGraph, input: RankRequest): RankedEntry[] {
  const ranking = rankLazily(graph, input);
  return ranking.slice(0, ranking.length);
}

/** Entries built at least this many at a time. */
const CHUNK = 256;

/**
 * {@link rankTags} on a prebuilt graph: applies the request's chat files and mentions (edge multipliers and
 * personalisation) and runs PageRank; definitions are ordered only as far as the list is read (see lazyOrder).
 * The order is exactly that of a full sort. Cheap next to building the graph.
 */
export function rankLazily(graph: TagGraph, input: RankRequest): Ranking {
  const chat = new Set(input.chatFiles ?? []);
  const { nodes } = graph;
  const relevance = input.relevance && input.relevance.size > 0 ? input.relevance : null;
  const { rank, pairRank } = rankPairs(graph, input, chat, relevance);
  const pairs = orderPairs(graph, pairRank, chat);
  // The most relevant files first, each with its best definition (or by name when it has none).
  const head = relevance ? headFiles(relevance, chat, input.files, nodes, rank) : [];
  const { headEntries, inHead, headPairEntries } = headOf(graph, head, pairs.best);
  const headSet = new Set(head);

  // Then the files without a shown definition: those in the graph by rank, then the rest as given.
  const listed = new Set<string>([...chat, ...head]);
  for (const node of pairs.withDefs) listed.add(nodes[node]!);
  // By rank, equal ranks in node order (what a stable sort gives).
  const byRank = Int32Array.from(nodes.keys()).sort((a, b) => rank[b]! - rank[a]! || a - b);
  const tail: string[] = [];
  const addTail = (f: string): void => {
    if (listed.has(f)) return;
    listed.add(f);
    tail.push(f);
  };
  for (const node of byRank) addTail(nodes[node]!);
  for (const f of input.files) addTail(f);

  const read = lazyEntries(graph, pairs.order, inHead, headEntries, pairs.pairEntries - headPairEntries, tail);
  return {
    length: read.length,
    files: [
      ...head,
      ...pairs.withDefs.filter((node) => !headSet.has(nodes[node]!)).map((node) => nodes[node]!),
      ...tail,
    ],
    slice: read.slice,
  };
}

/**
 * Personalised PageRank over the graph with this request's edge weights, each file's rank spread over its out-edges
 * onto (definer, identifier) pairs, and each pair lifted by its file's relevance.
 */
function rankPairs(
  graph: TagGraph,
  input: RankRequest,
  chat: Set<string>,
  relevance: ReadonlyMap<string, number> | null,
): { rank: Float64Array; pairRank: Float64Array } {
  const { nodes, from } = graph;
  const weight = edgeWeights(graph, chat, input.mentionedIdents ?? []);
  const personalization = personalize(
    nodes,
    new Set([...input.files, ...chat]).size,
    chat,
    new Set(input.mentionedFiles ?? []),
    new Set(input.mentionedIdents ?? []),
    weight.definesMentioned,
    relevance,
  );
  // PageRank over the merged parallel edges: the same ranks (weights of parallel edges add up), far fewer edges.
  const slotWeight = new Float64Array(graph.slotFrom.length);
  for (let e = 0; e < from.length; e++) slotWeight[graph.edgeSlot[e]!]! += weight.values[e]!;
  const rank = pageRank(
    { nodeCount: nodes.length, from: graph.slotFrom, to: graph.slotTo, weight: slotWeight },
    { personalization },
  );

  const n = from.length;
  const outWeight = new Float64Array(nodes.length);
  for (let s = 0; s < slotWeight.length; s++) outWeight[graph.slotFrom[s]!]! += slotWeight[s]!;
  const pairCount = graph.pairNode.length;
  const pairRank = new Float64Array(pairCount);
  for (let i = 0; i < n; i++) pairRank[graph.pair[i]!]! += (rank[from[i]!]! * weight.values[i]!) / outWeight[from[i]!]!;
  const nodeRelevance = new Float64Array(nodes.length);
  if (relevance) {
    nodes.forEach((f, node) => (nodeRelevance[node] = relevance.get(f) ?? 0));
    for (let i = 0; i < pairCount; i++) pairRank[i]! *= 1 + RELEVANCE_LIFT * nodeRelevance[graph.pairNode[i]!]!;
  }
  return { rank, pairRank };
}

/**
 * The pairs outside chat files in lazy best-first order (ties in reverse (path, name) order, as Aider's reverse sort
 * of tuples does), each file's best pair, the files with a definition best first, and the entries the pairs make.
 */
function orderPairs(graph: TagGraph, pairRank: Float64Array, chat: Set<string>) {
  const { nodes } = graph;
  const pairCount = graph.pairNode.length;
  const tie = graph.pairTie;
  const chatNode = nodes.map((f) => chat.has(f));
  const candidates = new Int32Array(pairCount);
  let candidateCount = 0;
  const best = new Int32Array(nodes.length).fill(-1);
  let pairEntries = 0;
  for (let i = 0; i < pairCount; i++) {
    const node = graph.pairNode[i]!;
    if (chatNode[node]) continue;
    candidates[candidateCount++] = i;
    pairEntries += graph.pairLineStart[i + 1]! - graph.pairLineStart[i]!;
    const b = best[node]!;
    if (b < 0 || pairRank[i]! > pairRank[b]! || (pairRank[i] === pairRank[b] && tie[i]! > tie[b]!)) best[node] = i;
  }
  const order = lazyOrder(pairRank, tie, candidates.subarray(0, candidateCount));
  const withDefs: number[] = [];
  best.forEach((p, node) => p >= 0 && withDefs.push(node));
  withDefs.sort((a, b) => pairRank[best[b]!]! - pairRank[best[a]!]! || tie[best[b]!]! - tie[best[a]!]!);
  return { order, best, withDefs, pairEntries };
}

/** The head files' entries (each file's best definition, or its name alone), the pairs they show, and their count. */
function headOf(graph: TagGraph, head: readonly string[], best: Int32Array) {
  const { nodes } = graph;
  const headEntries: RankedEntry[] = [];
  const inHead = new Uint8Array(graph.pairNode.length);
  let headPairEntries = 0;
  const nodeOf = new Map(nodes.map((f, node) => [f, node]));
  for (const f of head) {
    const node = nodeOf.get(f);
    const p = node === undefined ? -1 : best[node]!;
    if (p < 0) {
      headEntries.push({ relPath: f });
      continue;
    }
    inHead[p] = 1;
    headPairEntries += graph.pairLineStart[p + 1]! - graph.pairLineStart[p]!;
    const name = identName(graph, graph.pairIdent[p]!);
    for (let j = graph.pairLineStart[p]!; j < graph.pairLineStart[p + 1]!; j++)
      headEntries.push({ relPath: f, name, line: graph.pairLines[j]! });
  }
  return { headEntries, inHead, headPairEntries };
}

/**
 * The head entries, then the pairs' entries (not in the head) in `order`, ordered only as far as they are read,
 * then the tail files by name: `pairEntries` is how many entries those pairs make.
 */
function lazyEntries(
  graph: TagGraph,
  order: ReturnType<typeof lazyOrder>,
  inHead: Uint8Array,
  headEntries: readonly RankedEntry[],
  pairEntries: number,
  tail: readonly string[],
): RankedSource {
  const { nodes } = graph;
  const entries: RankedEntry[] = [...headEntries];
  let pairsTaken = 0;
  const pairsEnd = headEntries.length + pairEntries;
  const length = pairsEnd + tail.length;
  const ensure = (end: number): void => {
    while (entries.length < end && pairsTaken < order.size) {
      const sorted = order.head(pairsTaken + Math.max(CHUNK, end - entries.length));
      for (; pairsTaken < sorted.length; pairsTaken++) {
        const i = sorted[pairsTaken]!;
        if (inHead[i]) continue;
        const relPath = nodes[graph.pairNode[i]!]!;
        const name = identName(graph, graph.pairIdent[i]!);
        for (let j = graph.pairLineStart[i]!; j < graph.pairLineStart[i + 1]!; j++)
          entries.push({ relPath, name, line: graph.pairLines[j]! });
      }
    }
    if (entries.length < end && pairsTaken === order.size && entries.length === pairsEnd) {
      for (const relPath of tail) entries.push({ relPath });
    }
  };
  return {
    length,
    slice(start, end) {
      const stop = Math.min(end, length);
      ensure(stop);
      return entries.slice(start, stop);
    },
  };
}

/** Each edge's weight for this request, and the files that define a mentioned identifier. */
function edgeWeights(graph: TagGraph, chat: Set<string>, mentionedIdents: readonly string[]) {
  const { nodes, from, ident, sqrtCount } = graph;
  const idents = new Set(mentionedIdents);
  const mentioned = new Uint8Array(identCount(graph));
  const definesMentioned = new Set<string>();
  for (const name of idents) {
    const k = findIdent(graph, name);
    if (k < 0) continue;
    mentioned[k] = 1;
    const [a, b] = [graph.definerStart[k]!, graph.definerStart[k + 1]!];
    // Not in Aider, where a mention only re-weights edges, so "fix park_car" could not lift a file whose
    // `park_car` is only used inside it: files defining a mentioned identifier (one defined in ≤ 5 files).
    if (b - a <= 5) for (let i = a; i < b; i++) definesMentioned.add(nodes[graph.definers[i]!]!);
  }
  const inChat = nodes.map((f) => chat.has(f));
  const values = new Float64Array(from.length);
  for (let e = 0; e < from.length; e++) {
    const k = ident[e]!;
    if (k < 0) values[e] = 0.1;
    else
      values[e] =
        (mentioned[k] ? graph.mulMentioned[k]! : graph.mulPlain[k]!) * (inChat[from[e]!] ? 50 : 1) * sqrtCount[e]!;
  }
  return { values, definesMentioned };
}

/** The files at least HEAD_MIN relevant, most relevant first (equal relevance: higher rank, then path order). */
function headFiles(
  relevance: ReadonlyMap<string, number>,
  chat: Set<string>,
  files: readonly string[],
  nodes: string[],
  rank: Float64Array,
): string[] {
  const rankOf = new Map(nodes.map((f, node) => [f, rank[node]]));
  const candidates = new Set(files);
  return [...relevance]
    .filter(([f, v]) => v >= HEAD_MIN && !chat.has(f) && (candidates.has(f) || rankOf.has(f)))
    .sort(
      (a, b) =>
        b[1] - a[1] || (rankOf.get(b[0]) ?? 0) - (rankOf.get(a[0]) ?? 0) || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0),
    )
    .slice(0, HEAD_FILES)
    .map(([f]) => f);
}

function personalize(
  nodeNames: string[],
  fileCount: number,
  chat: Set<string>,
  mentionedFiles: Set<string>,
  idents: Set<string>,
  definesMentioned: Set<string>,
  relevance: ReadonlyMap<string, number> | null,
): number[] | undefined {
  const unit = 100 / Math.max(1, fileCount);
  const values = nodeNames.map((f) => {
    let pers = chat.has(f) ? unit : 0;
    if (mentionedFiles.has(f)) pers = Math.max(pers, unit);
    if (idents.size > 0 && namesPart(f, idents)) pers += unit;
    if (definesMentioned.has(f)) pers += unit;
    if (relevance) pers += RELEVANCE_PERSONALIZATION * unit * (relevance.get(f) ?? 0);
    return pers;
  });
  // Aider passes no personalization when no file earns any, and falls back to none when the files that do are all
  // outside the graph: both come down to plain PageRank.
  return values.some((v) => v > 0) ? values : undefined;
}

/** Whether a path segment of `f`, or its file name without the extension, is one of `idents`. */
function namesPart(f: string, idents: Set<string>): boolean {
  let start = 0;
  for (;;) {
    const slash = f.indexOf("/", start);
    const segment = f.slice(start, slash < 0 ? f.length : slash);
    if (idents.has(segment)) return true;
    if (slash < 0) {
      const dot = segment.lastIndexOf(".");
      return dot >= 0 && idents.has(segment.slice(0, dot));
    }
    start = slash + 1;
  }
}
