import { pageRank } from "./pagerank.js";
import { buildTagGraph, findIdent, type TagGraph } from "./tag-graph.js";
import type { RankedEntry, Tag } from "./types.js";

export { identMultiplier } from "./tag-graph.js";

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
  return rankGraph(buildTagGraph(input.tags), input);
}

/** What a request brings to the ranking of a {@link TagGraph}. */
export type RankRequest = Omit<RankInput, "tags">;

/**
 * {@link rankTags} on a prebuilt graph: applies the request's chat files and mentions (edge multipliers and
 * personalisation), runs PageRank and orders the definitions. Cheap next to building the graph.
 */
export function rankGraph(graph: TagGraph, input: RankRequest): RankedEntry[] {
  const chat = new Set(input.chatFiles ?? []);
  const mentionedFiles = new Set(input.mentionedFiles ?? []);
  const idents = new Set(input.mentionedIdents ?? []);
  const allFiles = [...new Set([...input.files, ...chat])].sort();
  const { nodes, from, to, ident, sqrtCount } = graph;

  const mentioned = new Uint8Array(graph.identNames.length);
  const definesMentioned = new Set<string>();
  for (const name of idents) {
    const k = findIdent(graph, name);
    if (k < 0) continue;
    mentioned[k] = 1;
    const [a, b] = [graph.definerStart[k], graph.definerStart[k + 1]];
    // Not in Aider, where a mention only re-weights edges, so "fix park_car" could not lift a file whose
    // `park_car` is only used inside it: files defining a mentioned identifier (one defined in ≤ 5 files).
    if (b - a <= 5) for (let i = a; i < b; i++) definesMentioned.add(nodes[graph.definers[i]]);
  }
  const inChat = nodes.map((f) => chat.has(f));
  const n = from.length;
  const weight = new Float64Array(n);
  for (let e = 0; e < n; e++) {
    const k = ident[e];
    if (k < 0) weight[e] = 0.1;
    else weight[e] = (mentioned[k] ? graph.mulMentioned[k] : graph.mulPlain[k]) * (inChat[from[e]] ? 50 : 1) * sqrtCount[e];
  }
  const personalization = personalize(nodes, allFiles, chat, mentionedFiles, idents, definesMentioned);
  const rank = pageRank({ nodeCount: nodes.length, from, to, weight }, { personalization });

  const outWeight = new Float64Array(nodes.length);
  for (let i = 0; i < n; i++) outWeight[from[i]] += weight[i];
  const pairCount = graph.pairNode.length;
  const pairRank = new Float64Array(pairCount);
  for (let i = 0; i < n; i++) pairRank[graph.pair[i]] += (rank[from[i]] * weight[i]) / outWeight[from[i]];
  // Best first; ties in reverse (path, name) order, as Aider's reverse sort of tuples does.
  const order = Array.from({ length: pairCount }, (_, i) => i);
  const tie = graph.pairTie;
  order.sort((a, b) => pairRank[b] - pairRank[a] || tie[b] - tie[a]);

  const out: RankedEntry[] = [];
  const listed = new Set<string>(chat);
  for (const i of order) {
    const relPath = nodes[graph.pairNode[i]];
    if (chat.has(relPath)) continue;
    const name = graph.identNames[graph.pairIdent[i]];
    for (let j = graph.pairLineStart[i]; j < graph.pairLineStart[i + 1]; j++) out.push({ relPath, name, line: graph.pairLines[j] });
    listed.add(relPath);
  }
  const byRank = nodes.map((f, i) => [f, rank[i]] as const).sort((a, b) => b[1] - a[1]);
  for (const f of [...byRank.map(([name]) => name), ...input.files]) {
    if (listed.has(f)) continue;
    listed.add(f);
    out.push({ relPath: f });
  }
  return out;
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
