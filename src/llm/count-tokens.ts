import { readFile } from "node:fs/promises";
import { decodeRanks, type BpeRanks } from "./bpe-ranks-file.js";

/**
 * Token counting with a real tokenizer (o200k via gpt-tokenizer). Loaded lazily on first use: building its tables
 * takes ~0.15 s. Special tokens in source text (e.g. `<|endoftext|>`) are counted as plain text.
 */
type Counter = (text: string) => number;

let counter: Counter | null = null;

/** Load the tokenizer once; call before using {@link countTokens} synchronously. */
export async function loadTokenizer(): Promise<Counter> {
  if (counter) return counter;
  const ranks = await readRanksFile();
  const api = ranks ? (await import("gpt-tokenizer/GptEncoding")).GptEncoding.getEncodingApi("o200k_base", () => ranks) : (await import("gpt-tokenizer/encoding/o200k_base")).default;
  const options = { disallowedSpecial: new Set<string>() };
  counter = (text: string) => api.countTokens(text, options);
  return counter;
}

/** Where `npm run build` writes the rank table (scripts/bundle.mjs): dist/data, beside dist's one-level-deep code. */
export const RANKS_FILE = new URL("../data/o200k_base.ranks", import.meta.url);

/**
 * The rank table from the build's compact file (see bpe-ranks-file), or null where there is none: the sources run
 * unbuilt (the unit tests), or a damaged build. gpt-tokenizer's own module holds the same table, ~0.3 s slower to load.
 */
async function readRanksFile(): Promise<BpeRanks | null> {
  try {
    return decodeRanks(await readFile(RANKS_FILE));
  } catch {
    return null; // the fallback above counts the same tokens
  }
}

/**
 * Longest run without whitespace given to the tokenizer in one piece. BPE merges within a run cost time quadratic in
 * its length (300,000 characters of one minified line took minutes); no real token is this long, so counting a
 * longer run in slices of this size changes the count by at most one token per slice and keeps the cost linear.
 */
const MAX_RUN = 200;
const LONG_RUN = new RegExp(`\\S{${MAX_RUN + 1},}`, "g");

/** Count tokens; falls back to a chars/4 estimate until {@link loadTokenizer} has resolved. Linear in the text's length. */
export function countTokens(text: string): number {
  if (!counter) return Math.ceil(text.length / 4);
  if (text.length <= MAX_RUN) return counter(text);
  let total = 0;
  let last = 0;
  for (const m of text.matchAll(LONG_RUN)) {
    total += counter(text.slice(last, m.index));
    for (let i = 0; i < m[0].length; i += MAX_RUN) total += counter(m[0].slice(i, i + MAX_RUN));
    last = m.index + m[0].length;
  }
  return total + counter(text.slice(last));
}
