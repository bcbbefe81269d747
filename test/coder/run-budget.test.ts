import { describe, expect, it } from "@jest/globals";
import { addUsage, budgetProblem, deadlineProblem, emptyUsage, sumTokens } from "../../src/coder/run-budget.js";

describe("deadlineProblem: the run's one deadline check", () => {
  it.each<[string, Parameters<typeof deadlineProblem>[0], string | null]>([
    ["no limit, not cancelled", { aborted: false, elapsedMs: 10_000_000, maxWallMs: undefined }, null],
    ["within the limit", { aborted: false, elapsedMs: 999, maxWallMs: 1000 }, null],
    ["exactly at the limit is still in time", { aborted: false, elapsedMs: 1000, maxWallMs: 1000 }, null],
    [
      "past the limit",
      { aborted: false, elapsedMs: 1001, maxWallMs: 1000 },
      "The run exceeded its time limit of 1000 ms.",
    ],
    ["cancelled, even in time", { aborted: true, elapsedMs: 0, maxWallMs: 1000 }, "The run was cancelled."],
    [
      "cancellation is named before lateness",
      { aborted: true, elapsedMs: 5000, maxWallMs: 1000 },
      "The run was cancelled.",
    ],
  ])("%s", (_why, clock, expected) => {
    expect(deadlineProblem(clock)).toBe(expected);
  });
});

describe("budgetProblem", () => {
  const used = (prompt: number, completion: number, costUsd: number | null) =>
    addUsage(emptyUsage(), { prompt, completion }, costUsd);
  it.each<[string, Parameters<typeof budgetProblem>[0], ReturnType<typeof used>, string | null]>([
    ["no budget", {}, used(1e6, 1e6, 100), null],
    ["tokens at the limit", { maxTokens: 100 }, used(60, 40, null), null],
    [
      "tokens over the limit",
      { maxTokens: 100 },
      used(60, 41, null),
      "Token budget exceeded: used 101 tokens, the limit is 100.",
    ],
    [
      "cost over the limit",
      { maxUsd: 0.5 },
      used(1, 1, 0.75),
      "Cost budget exceeded: spent $0.7500, the limit is $0.5.",
    ],
    ["unknown cost never exceeds a cost budget", { maxUsd: 0.5 }, used(1, 1, null), null],
    [
      "tokens are named before cost",
      { maxTokens: 1, maxUsd: 0.5 },
      used(1, 1, 0.75),
      "Token budget exceeded: used 2 tokens, the limit is 1.",
    ],
  ])("%s", (_why, budget, totals, expected) => {
    expect(budgetProblem(budget, totals)).toBe(expected);
  });
});

describe("usage totals", () => {
  it("add up the prompt tokens read from and written to the cache, shown only once some call had them", () => {
    let totals = addUsage(emptyUsage(), { prompt: 2000, completion: 100, cacheWrite: 1900 }, 0.01);
    totals = addUsage(totals, { prompt: 2500, completion: 50, cacheRead: 1900, cacheWrite: 500 }, 0.002);
    expect(totals.tokens).toEqual({ prompt: 4500, completion: 150, cacheRead: 1900, cacheWrite: 2400 });
    expect(totals.costUsd).toBeCloseTo(0.012);
    expect(sumTokens({ prompt: 1, completion: 2 }, { prompt: 3, completion: 4 })).toEqual({ prompt: 4, completion: 6 });
  });
});
