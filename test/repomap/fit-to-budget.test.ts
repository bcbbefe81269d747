import fc from "fast-check";
import { countTokens, loadTokenizer } from "../../src/llm/count-tokens.js";
import { fitToBudget } from "../../src/repomap/fit-to-budget.js";

beforeAll(async () => {
  await loadTokenizer();
});

// Each line is about 16 tokens: budgets of 200+ leave room to land within 15 %.
const lines = Array.from({ length: 400 }, (_, i) => `│export function helperNumber${i}(value: number): string {\n`);
const render = (chosen: string[]) => chosen.join("");

describe("fitToBudget", () => {
  test("never over the budget, and within 15 % under it when there is enough content", () => {
    fc.assert(
      fc.property(fc.integer({ min: 200, max: 3000 }), (budget) => {
        const fitted = fitToBudget(lines, render, budget, countTokens);
        expect(fitted.tokens).toBeLessThanOrEqual(budget);
        expect(countTokens(fitted.text)).toBe(fitted.tokens);
        expect(fitted.tokens).toBeGreaterThanOrEqual(0.85 * budget);
      }),
      { numRuns: 30 },
    );
  });

  test("an item too big for the rest of the budget is skipped and later ones fill it, in rank order", () => {
    const items = [
      "a ".repeat(40),
      "b ".repeat(40),
      "c ".repeat(200),
      ...Array.from({ length: 20 }, (_, i) => `d${i} `),
    ];
    const fitted = fitToBudget(items, (chosen) => chosen.join("\n"), 120, countTokens);
    expect(fitted.tokens).toBeLessThanOrEqual(120);
    expect(fitted.tokens).toBeGreaterThanOrEqual(0.85 * 120);
    expect(fitted.chosen).not.toContain(items[2]);
    expect(fitted.chosen.slice(0, 2)).toEqual(items.slice(0, 2));
  });

  test("all of a small map when it fits", () => {
    const fitted = fitToBudget(lines.slice(0, 5), render, 4096, countTokens);
    expect(fitted.chosen).toHaveLength(5);
    expect(fitted.text).toBe(lines.slice(0, 5).join(""));
  });

  test("a zero budget or nothing to show gives an empty map", () => {
    expect(fitToBudget(lines, render, 0, countTokens).text).toBe("");
    expect(fitToBudget([], render, 1024, countTokens).text).toBe("");
  });
});
