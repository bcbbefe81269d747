import { fuseRelevance } from "./fuse-relevance.js";
import {
  fieldPostings,
  namesWordList,
  prepareLexical,
  scoreLexically,
  type LexicalIndex,
  type NamesPostings,
} from "./lexical-scores.js";
import { identName, type TagGraph } from "./tag-graph.js";

/** What a map request says about what it is for, beyond chat files and mentions. */
export interface RequestContext {
  /** The request's text (instruction, and an issue's title and body): its words rank files lexically. */
  text?: string;
  /** Files the context points at (a pull request's changed files, review threads, CI annotations). */
  hintFiles?: readonly string[];
  /** Recent commits of the checkout, each the paths it changed (see `Git.changeHistory`); empty when shallow. */
  history?: readonly (readonly string[])[];
}

/**
 * Each file's relevance to the request (best 1; see fuseRelevance), from the graph's names (cached with it, so no
 * file is read) and the paths. Null when the request brings nothing (no text, hints or mentions): the ranking then
 * stays Aider's.
 */
export function requestRelevance(
  graph: TagGraph,
  files: readonly string[],
  request: RequestContext,
  mentions: { chatFiles: readonly string[]; mentionedFiles: readonly string[] },
): Map<string, number> | null {
  const text = request.text?.trim() ?? "";
  const hints = request.hintFiles ?? [];
  if (!text && hints.length === 0 && mentions.mentionedFiles.length === 0) return null;
  const lexical = text ? graphLexicalScores(graph, files, text) : new Map<string, number>();
  const relevance = fuseRelevance({
    files,
    lexical,
    chatFiles: mentions.chatFiles,
    mentionedFiles: mentions.mentionedFiles,
    hintFiles: hints,
    ...(request.history ? { history: request.history } : {}),
  });
  return relevance.size > 0 ? relevance : null;
}

/** Lexical scores of `files` (see scoreLexically) over the graph's cached name postings. */
export function graphLexicalScores(graph: TagGraph, files: readonly string[], text: string): Map<string, number> {
  return scoreLexically(lexicalIndex(graph, files), text);
}

/**
 * Each graph's lexical index, for the last list of files it served: a cached graph serves request after request
 * over the same files, which then only look up their own words.
 */
const LEXICAL_INDEX = new WeakMap<TagGraph, LexicalIndex>();

function lexicalIndex(graph: TagGraph, files: readonly string[]): LexicalIndex {
  for (const known of [graph.lexicalIndex, LEXICAL_INDEX.get(graph)])
    if (known && sameList(known.files, files)) return known;
  const names = graph.namePostings ?? graphNamePostings(graph);
  const byPath = new Map(graph.nodes.map((f, node) => [f, node]));
  const index = prepareLexical([...files], (i) => byPath.get(files[i] ?? "") ?? -1, names);
  LEXICAL_INDEX.set(graph, index);
  return index;
}

/**
 * Compute the graph's name postings and its lexical index for `files` (see TagGraph.lexicalIndex) and keep them on
 * it, so the cache stores them. Returns whether anything was added (then the graph needs storing again).
 */
export function attachLexicalIndex(graph: TagGraph, files: readonly string[]): boolean {
  if (graph.namePostings && graph.lexicalIndex) return false;
  attachNamePostings(graph);
  graph.lexicalIndex = lexicalIndex(graph, files);
  return true;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((x, i) => x === b[i]);
}

/** Compute the graph's name postings (see TagGraph.namePostings) and keep them on it, so the cache stores them. */
export function attachNamePostings(graph: TagGraph): TagGraph {
  graph.namePostings ??= graphNamePostings(graph);
  return graph;
}

/** Per node, the words of the names it defines, and of the names it uses that another file defines, as postings. */
function graphNamePostings(graph: TagGraph): NamesPostings {
  const { nodes } = graph;
  const defs: number[][] = nodes.map(() => []);
  graph.pairNode.forEach((node, p) => defs[node]?.push(graph.pairIdent[p] ?? -1));
  const refs: number[][] = nodes.map(() => []);
  // An identifier's edges are contiguous (referencers × definers), so a referencer seen last with it is a repeat.
  const last = new Int32Array(nodes.length).fill(-1);
  graph.from.forEach((f, e) => {
    const k = graph.ident[e] ?? -1;
    if (k < 0 || last[f] === k || f === graph.to[e]) return;
    last[f] = k;
    refs[f]?.push(k);
  });
  // Each word once per field: BM25 reads a field's length in distinct words, and a word a file's names repeat says
  // little more than one.
  const words = (ks: number[]): string[] => namesWordList([...new Set(ks)].map((k) => identName(graph, k)));
  return { defs: fieldPostings(defs.map(words)), refs: fieldPostings(refs.map(words)) };
}
