import { readFile } from "node:fs/promises";
import { createBpeCounter, readBpeTable } from "./bpe-table.js";
import { createCountMemo } from "./count-memo.js";

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
 * Longest run of non-whitespace, or of whitespace, given to the tokenizer in one piece. BPE merges within a run cost
 * time quadratic in its length (300,000 characters of one minified line took minutes, and 160,000 spaces two);
 * no real token is this long, so counting a longer run in slices of this size changes the count by at most one token
 * per slice and keeps the cost linear.
 */
const MAX_RUN = 200;

/** Whether a UTF-16 code unit is whitespace as the regular expression `\s` defines it. */
function isSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * Long texts' counts, remembered: a run's model requests repeat their earlier messages, and each request's estimate
 * counts them all. 1,000 characters and up (below that a lookup saves little); 4 million characters in all.
 */
const counted = createCountMemo((text) => countInSlices(counter!, text), { minChars: 1_000, maxChars: 4_000_000 });

/** Count tokens; falls back to a chars/4 estimate until {@link loadTokenizer} has resolved. Linear in the text's length. */
export function countTokens(text: string): number {
  if (!counter) return Math.ceil(text.length / 4);
  return counted(text);
}

/**
 * `count` summed over `text` cut so that no run of whitespace, or of anything else, longer than {@link MAX_RUN}
 * reaches it in one piece (pure but for `count`). The runs are found by a plain scan: a regular expression such as
 * `\S{201,}` overflows the stack on a run of a few megabytes.
 */
export function countInSlices(count: Counter, text: string): number {
  if (text.length <= MAX_RUN) return count(text);
  let total = 0;
  let last = 0; // start of the text not yet counted
  let run = 0; // start of the current run (all whitespace, or none)
  let space = isSpace(text.charCodeAt(0));
  for (let i = 1; i <= text.length; i++) {
    const here = i < text.length ? isSpace(text.charCodeAt(i)) : !space;
    if (here === space) continue;
    if (i - run > MAX_RUN) {
      if (run > last) total += count(text.slice(last, run));
      for (let at = run; at < i; at += MAX_RUN) total += count(text.slice(at, Math.min(at + MAX_RUN, i)));
      last = i;
    }
    run = i;
    space = here;
  }
  return total + count(text.slice(last));
}
