import { coChangeScores, MAX_FILES_PER_COMMIT } from "../../src/repomap/co-change.js";

describe("coChangeScores", () => {
  const known = new Set(["a.ts", "b.ts", "c.ts", "d.ts"]);

  test("files changed with a seed score, small commits and repeated pairings most; seeds are left out", () => {
    const history = [
      ["a.ts", "b.ts"],
      ["a.ts", "b.ts"],
      ["a.ts", "c.ts", "d.ts"],
      ["c.ts", "d.ts"],
    ];
    const scores = coChangeScores(history, new Map([["a.ts", 1]]), known);
    expect(scores.get("b.ts")).toBe(1);
    expect(scores.get("c.ts")!).toBeGreaterThan(0);
    expect(scores.get("c.ts")!).toBeLessThan(0.5);
    expect(scores.has("a.ts")).toBe(false);
  });

  test("a commit touching too many files (a shallow clone's only commit) says nothing", () => {
    const everything = ["a.ts", ...Array.from({ length: MAX_FILES_PER_COMMIT }, (_, i) => `f${i}.ts`)];
    expect(coChangeScores([everything], new Map([["a.ts", 1]]), new Set(everything)).size).toBe(0);
  });

  test("no history or no seed: no scores; files no longer in the repository are dropped", () => {
    expect(coChangeScores([], new Map([["a.ts", 1]]), known).size).toBe(0);
    expect(coChangeScores([["a.ts", "b.ts"]], new Map(), known).size).toBe(0);
    expect([...coChangeScores([["a.ts", "gone.ts", "b.ts"]], new Map([["a.ts", 1]]), known).keys()]).toEqual(["b.ts"]);
  });
});
