// Typed-array reads here end in `!`: every index is a loop bound taken from the arrays' own lengths, or an offset
// from the `*Start` / `items` arrays built together with the arrays they index, so each read is in bounds. These
// are the ranking's hot loops over typed arrays; a check per read would say nothing more.

/** A weighted directed multigraph over nodes 0..nodeCount-1 (parallel edges add up, as in networkx). */
export interface WeightedGraph {
  nodeCount: number;
  from: ArrayLike<number>;
  to: ArrayLike<number>;
  weight: ArrayLike<number>;
}

export interface PageRankOptions {
  alpha?: number;
  /** Restart (and dangling-node) distribution, any non-negative scale; uniform when absent. */
  personalization?: ArrayLike<number>;
  maxIterations?: number;
  /** Per-node tolerance: iteration stops when the L1 change is below nodeCount × tol. */
  tol?: number;
}

/**
 * Personalised PageRank by power iteration, computed as networkx's `pagerank` does (weights normalised per source,
 * start uniform, dangling nodes' rank redistributed along the personalization vector, alpha 0.85, L1 tolerance
 * N·1e-6, at most 100 iterations). Where networkx would raise for non-convergence we return the last iterate.
 * Throws when the personalization sums to zero (as networkx does), so callers can retry without it.
 * Example: `pageRank({ nodeCount: 2, from: [0], to: [1], weight: [1] })[1] > 0.5`
 */
export function pageRank(graph: WeightedGraph, options: PageRankOptions = {}): Float64Array {
  const n = graph.nodeCount;
  const alpha = options.alpha ?? 0.85;
  const maxIterations = options.maxIterations ?? 100;
  const tol = options.tol ?? 1e-6;
  if (n === 0) return new Float64Array(0);
  const p = restartVector(n, options.personalization);
  const outWeight = new Float64Array(n);
  for (let e = 0; e < graph.from.length; e++) outWeight[graph.from[e]!]! += graph.weight[e]!;
  const share = new Float64Array(graph.from.length);
  for (let e = 0; e < share.length; e++) share[e] = graph.weight[e]! / outWeight[graph.from[e]!]!;
  let x = new Float64Array(n).fill(1 / n);
  // Two vectors, swapped each iteration: a new one per iteration is garbage a warm map build does not need.
  let next = new Float64Array(n);
  for (let iter = 0; iter < maxIterations; iter++) {
    next.fill(0);
    let dangling = 0;
    for (let i = 0; i < n; i++) if (outWeight[i] === 0) dangling += x[i]!;
    for (let e = 0; e < share.length; e++) next[graph.to[e]!]! += x[graph.from[e]!]! * share[e]!;
    let err = 0;
    for (let i = 0; i < n; i++) {
      next[i] = alpha * (next[i]! + dangling * p[i]!) + (1 - alpha) * p[i]!;
      err += Math.abs(next[i]! - x[i]!);
    }
    [x, next] = [next, x];
    if (err < n * tol) break;
  }
  return x;
}

function restartVector(n: number, personalization: ArrayLike<number> | undefined): Float64Array {
  if (!personalization) return new Float64Array(n).fill(1 / n);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += personalization[i] ?? 0;
  if (!(sum > 0)) throw new RangeError("personalization sums to zero");
  const p = new Float64Array(n);
  for (let i = 0; i < n; i++) p[i] = (personalization[i] ?? 0) / sum;
  return p;
}
