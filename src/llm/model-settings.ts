import { lookupNames } from "./provider-of.js";

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Prompt tokens read from the provider's prompt cache; absent: billed as `input`. */
  cacheRead?: number;
  /** Prompt tokens written to the prompt cache (Anthropic bills them above `input`); absent: billed as `input`. */
  cacheWrite?: number;
}

/** What the bot knows about a model, as Aider's model settings: used for estimates, limits and defaults. */
export interface ModelSettings {
  /** Prompt + completion tokens the model accepts. */
  contextWindow: number;
  /** Most completion tokens one answer may have: the cap a spend reservation assumes when a call sets none. */
  maxOutput: number;
  /** The edit format that works best with it (`diff`, `whole`, `udiff`, …). */
  editFormat: string;
  /** Whether it accepts images in its messages. */
  images: boolean;
  /** USD per million tokens; absent when unknown (then only token limits can hold its spend). */
  price?: ModelPrice;
}

/** Entries by model name or family prefix; an operator's entry may set only some fields. */
export type ModelSettingsTable = Readonly<Record<string, Partial<ModelSettings>>>;

/** What is assumed of a model nothing is known about. */
export const GENERIC_MODEL: ModelSettings = {
  contextWindow: 128_000,
  maxOutput: 4_096,
  editFormat: "diff",
  images: false,
};

/** OpenAI-style automatic caching: cached prompt tokens at the documented cached-input price, no write surcharge. */
const cached = (input: number, output: number, cacheRead: number): ModelPrice => ({ input, output, cacheRead });

/** Anthropic's prompt caching (also on Bedrock and Vertex): a 5-minute cache write costs 1.25× input, a read 0.1×. */
const claude = (input: number, output: number): ModelPrice => ({
  input,
  output,
  cacheRead: round(input * 0.1),
  cacheWrite: round(input * 1.25),
});

const round = (n: number) => Math.round(n * 1e6) / 1e6;

/**
 * Built-in settings of common model families (list prices in USD per million tokens, as of 2025, with the prompt
 * cache's read and write prices where the provider publishes them; they go stale, so
 * the operator overrides them with `AIDER_BOT_MODEL_SETTINGS` or `AIDER_BOT_PRICES`). A name is looked up exactly,
 * then without its `provider/` prefixes, then by the longest family prefix (`gpt-4o-2024-08-06` → `gpt-4o`).
 */
export const DEFAULT_MODEL_SETTINGS: ModelSettingsTable = {
  "gpt-4o": {
    contextWindow: 128_000,
    maxOutput: 16_384,
    editFormat: "diff",
    images: true,
    price: cached(2.5, 10, 1.25),
  },
  "gpt-4o-mini": {
    contextWindow: 128_000,
    maxOutput: 16_384,
    editFormat: "whole",
    images: true,
    price: cached(0.15, 0.6, 0.075),
  },
  "gpt-4.1": {
    contextWindow: 1_047_576,
    maxOutput: 32_768,
    editFormat: "diff",
    images: true,
    price: cached(2, 8, 0.5),
  },
  "gpt-4.1-mini": {
    contextWindow: 1_047_576,
    maxOutput: 32_768,
    editFormat: "diff",
    images: true,
    price: cached(0.4, 1.6, 0.1),
  },
  "gpt-4.1-nano": {
    contextWindow: 1_047_576,
    maxOutput: 32_768,
    editFormat: "whole",
    images: true,
    price: cached(0.1, 0.4, 0.025),
  },
  "gpt-5": {
    contextWindow: 400_000,
    maxOutput: 128_000,
    editFormat: "diff",
    images: true,
    price: cached(1.25, 10, 0.125),
  },
  "gpt-5-mini": {
    contextWindow: 400_000,
    maxOutput: 128_000,
    editFormat: "diff",
    images: true,
    price: cached(0.25, 2, 0.025),
  },
  o3: { contextWindow: 200_000, maxOutput: 100_000, editFormat: "diff", images: true, price: cached(2, 8, 0.5) },
  "o3-mini": {
    contextWindow: 200_000,
    maxOutput: 100_000,
    editFormat: "diff",
    images: false,
    price: cached(1.1, 4.4, 0.55),
  },
  "o4-mini": {
    contextWindow: 200_000,
    maxOutput: 100_000,
    editFormat: "diff",
    images: true,
    price: cached(1.1, 4.4, 0.275),
  },
  "claude-3-5-sonnet": {
    contextWindow: 200_000,
    maxOutput: 8_192,
    editFormat: "diff",
    images: true,
    price: claude(3, 15),
  },
  "claude-3-5-sonnet-latest": {
    contextWindow: 200_000,
    maxOutput: 8_192,
    editFormat: "diff",
    images: true,
    price: claude(3, 15),
  },
  "claude-3-5-sonnet-20241022": {
    contextWindow: 200_000,
    maxOutput: 8_192,
    editFormat: "diff",
    images: true,
    price: claude(3, 15),
  },
  "claude-3-5-haiku": {
    contextWindow: 200_000,
    maxOutput: 8_192,
    editFormat: "diff",
    images: false,
    price: claude(0.8, 4),
  },
  "claude-3-7-sonnet": {
    contextWindow: 200_000,
    maxOutput: 64_000,
    editFormat: "diff",
    images: true,
    price: claude(3, 15),
  },
  "claude-sonnet-4": {
    contextWindow: 200_000,
    maxOutput: 64_000,
    editFormat: "diff",
    images: true,
    price: claude(3, 15),
  },
  "claude-sonnet-4-20250514": {
    contextWindow: 200_000,
    maxOutput: 64_000,
    editFormat: "diff",
    images: true,
    price: claude(3, 15),
  },
  "claude-opus-4": {
    contextWindow: 200_000,
    maxOutput: 32_000,
    editFormat: "diff",
    images: true,
    price: claude(15, 75),
  },
  "claude-opus-4-1": {
    contextWindow: 200_000,
    maxOutput: 32_000,
    editFormat: "diff",
    images: true,
    price: claude(15, 75),
  },
  "claude-sonnet-4-5": {
    contextWindow: 200_000,
    maxOutput: 64_000,
    editFormat: "diff",
    images: true,
    price: claude(3, 15),
  },
  "claude-haiku-4-5": {
    contextWindow: 200_000,
    maxOutput: 64_000,
    editFormat: "diff",
    images: true,
    price: claude(1, 5),
  },
  "claude-opus-4-5": {
    contextWindow: 200_000,
    maxOutput: 64_000,
    editFormat: "diff",
    images: true,
    price: claude(5, 25),
  },
  "deepseek-chat": {
    contextWindow: 64_000,
    maxOutput: 8_192,
    editFormat: "diff",
    images: false,
    price: cached(0.27, 1.1, 0.07),
  },
  "deepseek-reasoner": {
    contextWindow: 64_000,
    maxOutput: 8_192,
    editFormat: "diff",
    images: false,
    price: cached(0.55, 2.19, 0.14),
  },
  "gemini-2.5-pro": {
    contextWindow: 1_048_576,
    maxOutput: 65_536,
    editFormat: "diff-fenced",
    images: true,
    price: cached(1.25, 10, 0.31),
  },
  "gemini-2.5-flash": {
    contextWindow: 1_048_576,
    maxOutput: 65_536,
    editFormat: "diff",
    images: true,
    price: cached(0.3, 2.5, 0.075),
  },
  "qwen2.5-coder": { contextWindow: 32_768, maxOutput: 8_192, editFormat: "diff", images: false },
  llama: { contextWindow: 128_000, maxOutput: 4_096, editFormat: "whole", images: false },
};

/** The built-in table with the operator's entries merged over it, field by field. */
export function mergeModelSettings(user: ModelSettingsTable = {}): ModelSettingsTable {
  const out: Record<string, Partial<ModelSettings>> = { ...DEFAULT_MODEL_SETTINGS };
  for (const [name, entry] of Object.entries(user)) out[name] = { ...(out[name] ?? {}), ...entry };
  return out;
}

/**
 * The entry a model name finds: exact, then without `provider/` prefixes (and a cloud's Claude id as its model, see
 * {@link lookupNames}), then the longest family prefix.
 */
function findEntry(model: string, table: ModelSettingsTable): Partial<ModelSettings> | null {
  const names = lookupNames(model);
  for (const name of names) if (Object.hasOwn(table, name)) return table[name]!;
  for (const name of names) {
    let best: string | null = null;
    for (const key of Object.keys(table))
      if (name.startsWith(`${key}-`) && (best === null || key.length > best.length)) best = key;
    if (best !== null) return table[best]!;
  }
  return null;
}

/**
 * The settings of a model (the generic ones for fields nothing names). `known` says whether any entry matched.
 *
 * @example modelSettings("openrouter/anthropic/claude-sonnet-4").settings.contextWindow // 200000
 */
export function modelSettings(
  model: string,
  table: ModelSettingsTable = DEFAULT_MODEL_SETTINGS,
): { settings: ModelSettings; known: boolean } {
  const entry = findEntry(model, table);
  return { settings: { ...GENERIC_MODEL, ...(entry ?? {}) }, known: entry !== null };
}

/** Whether a model accepts images (false when unknown). */
export function acceptsImages(model: string, table: ModelSettingsTable = DEFAULT_MODEL_SETTINGS): boolean {
  return modelSettings(model, table).settings.images;
}
