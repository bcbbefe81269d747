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
    expect(findPrice("openrouter/anthropic/claude-sonnet-4", table)).toEqual({
      input: 3,
      output: 15,
      cacheRead: 0.3,
      cacheWrite: 3.75,
    });
  });

  it("finds a Bedrock or Vertex Claude id under the model it stands for", () => {
    const sonnet = DEFAULT_PRICES["claude-sonnet-4-5"];
    expect(findPrice("bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", DEFAULT_PRICES)).toEqual(sonnet);
    expect(findPrice("vertex/claude-sonnet-4-5@20250929", DEFAULT_PRICES)).toEqual(sonnet);
    expect(findPrice("bedrock/us.anthropic.claude-3-5-sonnet-20241022-v2:0", DEFAULT_PRICES)).toEqual(
      DEFAULT_PRICES["claude-3-5-sonnet-20241022"],
    );
    expect(findPrice("bedrock/meta.llama3-70b-instruct-v1:0", DEFAULT_PRICES)).toBeNull();
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

  it("carries cache prices: Anthropic's write at 1.25× and read at 0.1× input, OpenAI's documented cached price", () => {
    for (const name of [
      "claude-sonnet-4",
      "claude-3-5-haiku",
      "claude-opus-4",
      "claude-3-7-sonnet",
      "claude-sonnet-4-5",
      "claude-haiku-4-5",
      "claude-opus-4-1",
      "claude-opus-4-5",
    ]) {
      const price = findPrice(name, DEFAULT_PRICES)!;
      expect(price.cacheWrite).toBeCloseTo(price.input * 1.25);
      expect(price.cacheRead).toBeCloseTo(price.input * 0.1);
    }
    expect(DEFAULT_PRICES["gpt-4o"]).toEqual({ input: 2.5, output: 10, cacheRead: 1.25 });
    expect(DEFAULT_PRICES["gpt-4.1"]?.cacheRead).toBe(0.5);
    expect(DEFAULT_PRICES["gpt-5"]?.cacheRead).toBe(0.125);
    for (const [name, price] of Object.entries(DEFAULT_PRICES)) {
      expect([name, price.cacheRead ?? 0]).toEqual([name, expect.any(Number)]);
      expect(price.cacheRead).toBeLessThan(price.input);
      if (!name.startsWith("claude")) expect(price.cacheWrite).toBeUndefined(); // automatic caches bill writes as input
    }
  });

  it("bills cached prompt tokens at the cache prices, counted inside the prompt", () => {
    // 10,000 prompt tokens: 8,000 read (0.30), 1,000 written (3.75), 1,000 uncached (3); 100 completion (15).
    const usage = { prompt: 10_000, completion: 100, cacheRead: 8_000, cacheWrite: 1_000 };
    const expected = (1_000 * 3 + 8_000 * 0.3 + 1_000 * 3.75 + 100 * 15) / 1e6;
    expect(costUsd("anthropic/claude-sonnet-4", usage)).toBeCloseTo(expected, 10);
    expect(costUsd("gpt-4o", { prompt: 1000, completion: 200, cacheRead: 800 })).toBeCloseTo(0.0035, 10);
    // a model without cache prices bills cached tokens as input; nonsense counts never lower the bill
    const plain = mergePrices({ mine: { input: 1, output: 2 } });
    expect(costUsd("mine", usage, plain)).toBeCloseTo((10_000 * 1 + 100 * 2) / 1e6, 10);
    expect(costUsd("gpt-4o", { prompt: 1000, completion: 0, cacheRead: 5000 })).toBeCloseTo(1000 * 1.25e-6, 10);
    expect(costUsd("gpt-4o", { prompt: 1000, completion: 0, cacheRead: -5 })).toBeCloseTo(1000 * 2.5e-6, 10);
  });
});
