import { DEFAULT_MODEL_SETTINGS, type ModelPrice, type ModelSettingsTable } from "./model-settings.js";
import { lookupNames } from "./provider-of.js";
import type { TokenUsage } from "./types.js";

export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * Published list prices of common models, taken from the model settings table (model-settings.ts), where each
 * model's context window, output limit and edit format live beside its price. Users override or extend them.
 */
export const DEFAULT_PRICES: PriceTable = pricesOf(DEFAULT_MODEL_SETTINGS);

/** The prices a model settings table names. */
export function pricesOf(table: ModelSettingsTable): PriceTable {
  const out: Record<string, ModelPrice> = {};
  for (const [name, entry] of Object.entries(table)) if (entry.price) out[name] = entry.price;
  return out;
}

/** The defaults with the user's entries on top (theirs win on the same name). */
export function mergePrices(user: PriceTable = {}): PriceTable {
  return { ...DEFAULT_PRICES, ...user };
}

/**
 * The price of a model: its exact name first, then with leading `provider/` segments removed one by one
 * (`openrouter/anthropic/claude-sonnet-4` → `anthropic/claude-sonnet-4` → `claude-sonnet-4`), then a cloud's Claude
 * id as the model it stands for (`bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0` → `claude-sonnet-4-5`; see
 * {@link lookupNames}). Null when unknown: no family guess (a dated variant may be priced otherwise).
 */
export function findPrice(model: string, table: PriceTable): ModelPrice | null {
  for (const name of lookupNames(model)) if (Object.hasOwn(table, name)) return table[name]!;
  return null;
}

/**
 * Cost of a call in USD, or null when the model has no known price. The prompt tokens read from or written to the
 * provider's prompt cache (counted inside `prompt`) are billed at the model's cache prices; a model without them
 * bills them as input.
 *
 * @example costUsd("openai/gpt-4o", { prompt: 1000, completion: 200 }) // 0.0045
 * @example costUsd("gpt-4o", { prompt: 1000, completion: 200, cacheRead: 800 }) // 0.0035
 */
export function costUsd(model: string, usage: TokenUsage, table: PriceTable = DEFAULT_PRICES): number | null {
  const price = findPrice(model, table);
  if (!price) return null;
  return priceTokens(price, usage) / 1_000_000;
}

/** USD × 10⁶ of a usage at a price (per million tokens): uncached input, cache reads, cache writes, completion. */
export function priceTokens(price: ModelPrice, usage: TokenUsage): number {
  const read = clampCached(usage.cacheRead, usage.prompt);
  const write = clampCached(usage.cacheWrite, usage.prompt - read);
  const input = usage.prompt - read - write;
  return (
    input * price.input +
    read * (price.cacheRead ?? price.input) +
    write * (price.cacheWrite ?? price.input) +
    usage.completion * price.output
  );
}

/** Cached tokens are part of the prompt: never negative, never more than what is left of it. */
function clampCached(n: number | undefined, max: number): number {
  return typeof n === "number" && Number.isFinite(n) && n > 0 ? Math.min(n, Math.max(0, max)) : 0;
}
