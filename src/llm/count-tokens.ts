/**
 * Token counting with a real tokenizer (o200k via gpt-tokenizer). The module is loaded lazily on first use because
 * it takes ~0.3 s to load. Special tokens in source text (e.g. `<|endoftext|>`) are counted as plain text.
 */
type Counter = (text: string) => number;

let counter: Counter | null = null;

/** Load the tokenizer once; call before using {@link countTokens} synchronously. */
export async function loadTokenizer(): Promise<Counter> {
  if (counter) return counter;
  const mod = await import("gpt-tokenizer/encoding/o200k_base");
  const options = { disallowedSpecial: new Set<string>() };
  counter = (text: string) => mod.countTokens(text, options);
  return counter;
}

/** Count tokens; falls back to a chars/4 estimate until {@link loadTokenizer} has resolved. */
export function countTokens(text: string): number {
  return counter ? counter(text) : Math.ceil(text.length / 4);
}
