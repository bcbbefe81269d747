import { createHash } from "node:crypto";

/**
 * The prompt-cache rules the providers document, for the wire-level fakes (fake-claude-server, fake-openai-cache-
 * server) and the cost bench: a request laid out so its stable prefix repeats is reported as cache reads, and one that
 * breaks the prefix (a re-rendered timestamp, a reordered file) as misses. Tokens are counted as 4 characters each —
 * the fakes need a count that is the same for every layout, not the model's tokenizer.
 */
export const CHARS_PER_TOKEN = 4;

export const tokensOf = (text: string): number => Math.ceil(text.length / CHARS_PER_TOKEN);

/** One block of an Anthropic request, in order (tools, system, then each message's blocks). */
export interface CacheBlock {
  /** The block's content as sent, without its `cache_control` (plus its role), so equal blocks compare equal. */
  key: string;
  tokens: number;
  /** The block carries `cache_control`. */
  breakpoint: boolean;
}

export interface BreakpointUsage {
  /** Tokens read from the cache (`cache_read_input_tokens`). */
  read: number;
  /** Tokens written to it (`cache_creation_input_tokens`). */
  write: number;
  /** The rest (`input_tokens`, which excludes both). */
  input: number;
}

/**
 * Anthropic's rule (also Claude on Bedrock and Vertex): a prefix ending at a `cache_control` breakpoint is written to
 * the cache when it holds at least `minTokens` (1,024; 2,048 for Haiku); a later request reads the longest cached
 * prefix found at one of its breakpoints or up to `lookback` (20) blocks before one. Everything up to the last
 * breakpoint that was not read is written. Caches are per `scope` (the model); entries do not expire here (the
 * 5-minute lifetime is longer than a test).
 */
export function createBreakpointCache(o: { minTokens?: number; lookback?: number } = {}) {
  const minTokens = o.minTokens ?? 1024;
  const lookback = o.lookback ?? 20;
  const stored = new Set<string>();
  return {
    account(scope: string, blocks: readonly CacheBlock[]): BreakpointUsage {
      const hashes: string[] = [];
      const sums: number[] = [];
      let hash = scope;
      let sum = 0;
      for (const block of blocks) {
        hash = createHash("sha256").update(hash).update("\0").update(block.key).digest("hex");
        sum += block.tokens;
        hashes.push(hash);
        sums.push(sum);
      }
      const total = sum;
      const breakpoints = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
      let read = 0;
      for (const b of breakpoints)
        for (let j = b; j >= Math.max(0, b - lookback); j--)
          if (stored.has(hashes[j]!)) {
            read = Math.max(read, sums[j]!);
            break;
          }
      let write = 0;
      for (const b of breakpoints) {
        if (sums[b]! < minTokens) continue;
        stored.add(hashes[b]!);
        write = Math.max(write, sums[b]! - read);
      }
      return { read, write, input: total - read - write };
    },
  };
}

/**
 * OpenAI's and Azure OpenAI's rule: automatic for prompts of at least `minTokens` (1,024); the cached part is the
 * longest common prefix with an earlier prompt of the same model and `prompt_cache_key`, counted in steps of `step`
 * (128) tokens from 1,024. Returns the cached tokens of `text` (the request's messages serialized in order).
 */
export function createPrefixCache(o: { minTokens?: number; step?: number } = {}) {
  const minTokens = o.minTokens ?? 1024;
  const step = o.step ?? 128;
  const seen = new Map<string, string[]>();
  return {
    account(scope: string, text: string): { cached: number; total: number } {
      const total = tokensOf(text);
      const earlier = seen.get(scope) ?? [];
      let longest = 0;
      for (const prior of earlier) longest = Math.max(longest, commonPrefix(prior, text));
      earlier.push(text);
      seen.set(scope, earlier);
      const shared = Math.floor(longest / CHARS_PER_TOKEN);
      if (total < minTokens || shared < minTokens) return { cached: 0, total };
      return { cached: minTokens + Math.floor((shared - minTokens) / step) * step, total };
    },
  };
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}
