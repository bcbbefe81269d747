import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import {
  getCloseMatches,
  matchingBlocks,
  quickRatio,
  realQuickRatio,
  sequenceRatio,
} from "../../src/edits/sequence-matcher.js";

interface RatioCase {
  a: string | string[];
  b: string | string[];
  ratio: number;
  quick: number;
  realQuick: number;
  blocks: [number, number, number][];
}
interface CloseCase {
  word: string;
  possibilities: string[];
  n: number;
  cutoff: number;
  result: string[];
}

// Values produced by CPython's difflib (see difflib-oracle.py next to the JSON), including sequences of 200+ items
// where difflib's autojunk heuristic changes the result.
const oracle = JSON.parse(
  readFileSync(
    path.join(path.dirname(fileURLToPath(import.meta.url)), "../fixtures/edits/editblock/difflib-oracle.json"),
    "utf8",
  ),
) as {
  ratios: RatioCase[];
  close: CloseCase[];
};

describe("sequenceRatio and friends agree with CPython difflib", () => {
  it.each(oracle.ratios.map((c, i) => [i, c] as const))("case %i", (_i, c) => {
    expect(sequenceRatio(c.a, c.b)).toBe(c.ratio);
    expect(quickRatio(c.a, c.b)).toBe(c.quick);
    expect(realQuickRatio(c.a, c.b)).toBe(c.realQuick);
    expect(matchingBlocks(c.a, c.b).map((m) => [m.a, m.b, m.size])).toEqual(c.blocks);
  });

  it("covers sequences long enough for autojunk to matter", () => {
    const long = oracle.ratios.filter((c) => c.b.length >= 200);
    expect(long.length).toBeGreaterThan(0);
    // Without autojunk some of them would score differently: the oracle really exercises the heuristic.
    expect(long.some((c) => sequenceRatio(c.a, c.b, false) !== c.ratio)).toBe(true);
  });

  it.each(oracle.close.map((c, i) => [i, c] as const))("getCloseMatches case %i", (_i, c) => {
    expect(getCloseMatches(c.word, c.possibilities, c.n, c.cutoff)).toEqual(c.result);
  });

  it("bounds: ratio ≤ quickRatio ≤ realQuickRatio, and a sequence matches itself fully", () => {
    const seq = fc.array(fc.constantFrom("a", "b", "c", "}", ""), { maxLength: 40 });
    fc.assert(
      fc.property(seq, seq, (a, b) => {
        const r = sequenceRatio(a, b);
        expect(r).toBeLessThanOrEqual(quickRatio(a, b));
        expect(quickRatio(a, b)).toBeLessThanOrEqual(realQuickRatio(a, b));
        expect(sequenceRatio(a, a)).toBe(1);
      }),
      { numRuns: 300 },
    );
  });

  it("rejects invalid getCloseMatches arguments like difflib", () => {
    expect(() => getCloseMatches("a", ["a"], 0)).toThrow(/n must be/);
    expect(() => getCloseMatches("a", ["a"], 1, 1.5)).toThrow(/cutoff/);
  });
});
