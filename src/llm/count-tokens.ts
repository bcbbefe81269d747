import { readFile } from "node:fs/promises";
import { createBpeCounter, readBpeTable } from "./bpe-table.js";

/**
 * Token counting with a real tokenizer (o200k). Loaded lazily on first use. From the build, a table read as it lies
 * in its file (see bpe-table; ~25 ms); from the unbuilt sources (the unit tests, tsx), the build's table when there
 * is one, else gpt-tokenizer itself, which builds its maps in ~0.3 s. The two count the same. Special tokens in
 * source text (e.g. `<|endoftext|>`) are counted as plain text.
 */
type Counter = (text: string) => number;

let counter: Counter | null = null;
let loading: Promise<Counter> | null = null;

/**
 * Where `npm run build` writes the table (scripts/bundle.mjs): dist/data, beside dist's one-level-deep code. Our own
 * build output, read directly; no checkout content is read here.
 */
export const TOKEN_TABLE_FILE = new URL("../data/o200k_base.table", import.meta.url);

/** Where the same table lies seen from src/llm (the sources run unbuilt): dist/data, if the project was built. */
const BUILT_TABLE_FROM_SOURCES = new URL("../../dist/data/o200k_base.table", import.meta.url);

/** Load the tokenizer once; call before using {@link countTokens} synchronously. */
export async function loadTokenizer(): Promise<Counter> {
  // One load however many callers ask at once (a spare's preload and its job's first count may overlap).
  loading ??= (async () => (counter = (await tableCounter()) ?? (await libraryCounter())))();
  return loading;
}

/** The counter over the build's table, or null where there is none (unbuilt sources) or it is damaged. */
async function tableCounter(): Promise<Counter | null> {
  let file: Buffer;
  try {
    file = await readFile(TOKEN_TABLE_FILE);
  } catch {
    // Unbuilt sources: the build's table if there is one, else the library (the same tokens, slower to load).
    if (!import.meta.url.includes("/src/llm/")) return null;
    try {
      file = await readFile(BUILT_TABLE_FROM_SOURCES);
    } catch {
      return null;
    }
  }
  const { O200K_TOKEN_SPLIT_REGEX } = await import("gpt-tokenizer/encodingParams/constants");
  try {
    return createBpeCounter(readBpeTable(file), O200K_TOKEN_SPLIT_REGEX);
  } catch {
    return null; // a damaged build: the library is the same data
  }
}

/** gpt-tokenizer's own o200k counter, special tokens counted as text. */
export async function libraryCounter(): Promise<Counter> {
  const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base");
  const options = { disallowedSpecial: new Set<string>() };
  return (text) => countTokens(text, options);
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
