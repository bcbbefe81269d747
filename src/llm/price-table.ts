import type { TokenUsage } from "./types.js";

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * Published list prices of common models (USD per million tokens, as of 2025). They go stale: users override or
 * extend them with their own table, which the config layer loads.
 */
export const DEFAULT_PRICES: PriceTable = {
  "gpt-4o": { input: 2.5, output: 10 },
  "gpt-4o-mini": { input: 0.15, output: 0.6 },
  "gpt-4.1": { input: 2, output: 8 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4 },
  "gpt-5": { input: 1.25, output: 10 },
  "gpt-5-mini": { input: 0.25, output: 2 },
  o3: { input: 2, output: 8 },
  "o3-mini": { input: 1.1, output: 4.4 },
  "o4-mini": { input: 1.1, output: 4.4 },
  "claude-3-5-sonnet": { input: 3, output: 15 },
  "claude-3-5-sonnet-latest": { input: 3, output: 15 },
  "claude-3-5-sonnet-20241022": { input: 3, output: 15 },
  "claude-3-5-haiku": { input: 0.8, output: 4 },
  "claude-3-7-sonnet": { input: 3, output: 15 },
  "claude-sonnet-4": { input: 3, output: 15 },
  "claude-sonnet-4-20250514": { input: 3, output: 15 },
  "claude-opus-4": { input: 15, output: 75 },
  "deepseek-chat": { input: 0.27, output: 1.1 },
  "deepseek-reasoner": { input: 0.55, output: 2.19 },
  "gemini-2.5-pro": { input: 1.25, output: 10 },
  "gemini-2.5-flash": { input: 0.3, output: 2.5 },
};

/** The defaults with the user's entries on top (theirs win on the same name). */
export function mergePrices(user: PriceTable = {}): PriceTable {
  return { ...DEFAULT_PRICES, ...user };
}

/**
 * The price of a model: its exact name first, then with leading `provider/` segments removed one by one
 * (`openrouter/anthropic/claude-sonnet-4` → `anthropic/claude-sonnet-4` → `claude-sonnet-4`). Null when unknown.
 */
export function findPrice(model: string, table: PriceTable): ModelPrice | null {
  let name = model;
  for (;;) {
    if (Object.hasOwn(table, name)) return table[name]!;
    const slash = name.indexOf("/");
    if (slash < 0) return null;
    name = name.slice(slash + 1);
  }
}

/**
 * Cost of a call in USD, or null when the model has no known price.
 *
 * @example costUsd("openai/gpt-4o", { prompt: 1000, completion: 200 }) // 0.0045
 */
export function costUsd(model: string, usage: TokenUsage, table: PriceTable = DEFAULT_PRICES): number | null {
  const price = findPrice(model, table);
  if (!price) return null;
  return (usage.prompt * price.input + usage.completion * price.output) / 1_000_000;
}
