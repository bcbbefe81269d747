import fc from "fast-check";
import { at } from "../helpers/at.js";
import { pageRank, type WeightedGraph } from "../../src/repomap/pagerank.js";

/**
 * The exact fixed point by Gaussian elimination, an independent way to the same answer:
 * x = α(xW + (x·d)p) + (1−α)p with Σx = 1, where d marks dangling nodes.
 */
function solveExactly(g: WeightedGraph, p: number[], alpha = 0.85): number[] {
  const n = g.nodeCount;
  const out = new Array<number>(n).fill(0);
  for (let e = 0; e < g.from.length; e++) out[at(g.from, e)] = at(out, at(g.from, e)) + at(g.weight, e);
  // Row i of the system: x_i − α Σ_j x_j M_ji = (1−α) p_i, where M_ji is j's share to i (p_i if j dangles).
  const a: number[][] = Array.from({ length: n }, (_, i) => Array.from({ length: n + 1 }, (_, j) => (i === j ? 1 : 0)));
  const get = (r: number, c: number): number => at(at(a, r), c);
  const add = (r: number, c: number, v: number): void => void (at(a, r)[c] = get(r, c) + v);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) if (out[j] === 0) add(i, j, -alpha * at(p, i));
    at(a, i)[n] = (1 - alpha) * at(p, i);
  }
  for (let e = 0; e < g.from.length; e++) {
    const from = at(g.from, e);
    add(at(g.to, e), from, -(alpha * at(g.weight, e)) / at(out, from));
  }
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(get(r, c)) > Math.abs(get(pivot, c))) pivot = r;
    const row = at(a, c);
    a[c] = at(a, pivot);
    a[pivot] = row;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = get(r, c) / get(c, c);
      for (let k = c; k <= n; k++) add(r, k, -f * get(c, k));
    }
  }
  return a.map((row, i) => at(row, n) / at(row, i));
}

const graphArb = fc
  .integer({ min: 1, max: 7 })
  .chain((n) =>
    fc.record({
      n: fc.constant(n),
      edges: fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1), fc.double({ min: 0.1, max: 50, noNaN: true })), {
        maxLength: 20,
      }),
      pers: fc.array(fc.double({ min: 0, max: 5, noNaN: true }), { minLength: n, maxLength: n }),
    }),
  )
  .filter(({ pers }) => pers.some((v) => v > 0.01));

describe("pageRank", () => {
  test("matches the exact solution of the personalised PageRank equations", () => {
    fc.assert(
      fc.property(graphArb, ({ n, edges, pers }) => {
        const g = {
          nodeCount: n,
          from: edges.map((e) => e[0]),
          to: edges.map((e) => e[1]),
          weight: edges.map((e) => e[2]),
        };
        const sum = pers.reduce((s, v) => s + v, 0);
        const exact = solveExactly(
          g,
          pers.map((v) => v / sum),
        );
        const got = pageRank(g, { personalization: pers, tol: 1e-12, maxIterations: 1000 });
        got.forEach((v, i) => expect(v).toBeCloseTo(exact[i]!, 6));
        expect(got.reduce((s, v) => s + v, 0)).toBeCloseTo(1, 9);
      }),
    );
  });

  test("parallel edges add up, and rank flows towards the target", () => {
    const one = pageRank({ nodeCount: 3, from: [0, 1], to: [2, 2], weight: [2, 1] });
    const split = pageRank({ nodeCount: 3, from: [0, 0, 1], to: [2, 2, 2], weight: [1, 1, 1] });
    expect([...split]).toEqual([...one]);
    expect(one[2]).toBeGreaterThan(one[0]!);
  });

  test("a personalization that sums to zero throws so callers can fall back", () => {
    expect(() => pageRank({ nodeCount: 2, from: [0], to: [1], weight: [1] }, { personalization: [0, 0] })).toThrow(
      RangeError,
    );
  });

  test("an empty graph has no ranks", () => {
    expect(pageRank({ nodeCount: 0, from: [], to: [], weight: [] })).toHaveLength(0);
  });
});
