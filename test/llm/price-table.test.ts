import { costUsd, DEFAULT_PRICES, findPrice, mergePrices } from "../../src/llm/price-table.js";

describe("price table", () => {
  it.each([
    "gpt-4o",
    "gpt-4o-mini",
    "gpt-4.1",
    "gpt-4.1-mini",
    "o3-mini",
    "claude-3-5-sonnet",
    "claude-sonnet-4",
    "deepseek-chat",
  ])("knows %s", (model) => {
    expect(findPrice(model, DEFAULT_PRICES)).not.toBeNull();
  });

  it("matches exactly first, then without provider prefixes", () => {
    const table = mergePrices({ "openrouter/gpt-4o": { input: 100, output: 100 } });
    expect(findPrice("openrouter/gpt-4o", table)).toEqual({ input: 100, output: 100 });
    expect(findPrice("openai/gpt-4o", table)).toEqual(DEFAULT_PRICES["gpt-4o"]);
    expect(findPrice("openrouter/anthropic/claude-sonnet-4", table)).toEqual({ input: 3, output: 15 });
  });

  it("does not guess: unknown names, dated variants not listed, and prototype keys cost null", () => {
    expect(costUsd("local-llama", { prompt: 10, completion: 10 })).toBeNull();
    expect(costUsd("gpt-4o-2099-01-01", { prompt: 10, completion: 10 })).toBeNull();
    expect(costUsd("constructor", { prompt: 10, completion: 10 })).toBeNull();
  });

  it("lets user prices override the defaults and computes USD per million tokens", () => {
    const table = mergePrices({ "gpt-4o": { input: 1, output: 4 } });
    expect(costUsd("gpt-4o", { prompt: 2_000_000, completion: 500_000 }, table)).toBeCloseTo(4);
    expect(costUsd("gpt-4o", { prompt: 1000, completion: 200 })).toBeCloseTo(0.0045);
  });
});
