import fc from "fast-check";
import { kthLargest, lazyOrder } from "../../src/repomap/lazy-order.js";

/** The order a full sort gives: score descending, then tie descending. */
function fullOrder(score: number[], tie: number[], candidates: number[]): number[] {
  return [...candidates].sort((a, b) => score[b]! - score[a]! || tie[b]! - tie[a]!);
}

// Few distinct scores, so ties are common and the threshold selection must keep them together.
const scores = fc.array(
  fc.integer({ min: 0, max: 40 }).map((n) => n / 7),
  { minLength: 0, maxLength: 3000 },
);

describe("lazyOrder", () => {
  test("every head is the full sort's prefix, however far and in whatever steps it is read", () => {
    fc.assert(
      fc.property(scores, fc.array(fc.integer({ min: 0, max: 3500 }), { maxLength: 5 }), (score, reads) => {
        const n = score.length;
        const tie = Array.from({ length: n }, (_, i) => (i * 7919) % Math.max(1, n));
        const candidates = Array.from({ length: n }, (_, i) => i).filter((i) => i % 5 !== 3);
        const expected = fullOrder(score, tie, candidates);
        const order = lazyOrder(Float64Array.from(score), Int32Array.from(tie), Int32Array.from(candidates));
        expect(order.size).toBe(candidates.length);
        for (const count of [...reads, n]) expect([...order.head(count)]).toEqual(expected.slice(0, count));
      }),
      { numRuns: 60 },
    );
  });

  test("reading a short head sorts only a batch, not everything", () => {
    const n = 50_000;
    const score = Float64Array.from({ length: n }, (_, i) => ((i * 2654435761) % 1_000_003) / 1_000_003);
    const order = lazyOrder(
      score,
      new Int32Array(n),
      Int32Array.from({ length: n }, (_, i) => i),
    );
    const head = order.head(10);
    expect(head).toHaveLength(10);
    for (let i = 1; i < head.length; i++) expect(score[head[i - 1]!]).toBeGreaterThanOrEqual(score[head[i]!]!);
    expect(score[head[0]!]).toBe(Math.max(...score));
  });
});

describe("kthLargest", () => {
  test("matches sorting", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 500 }),
        fc.nat(),
        (values, k0) => {
          const k = (k0 % values.length) + 1;
          const sorted = [...values].sort((a, b) => b - a);
          const indices = Int32Array.from(values.keys());
          // -0 and 0 are one score: either may come back (toBe alone would tell them apart, and failed on such a draw).
          expect(kthLargest(indices, values, k) + 0).toBe(sorted[k - 1]! + 0);
        },
      ),
      { numRuns: 200 },
    );
  });
});
