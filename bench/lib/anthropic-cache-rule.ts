import { createHash } from "node:crypto";
import type { ChatMessage, TokenUsage } from "../../src/llm/types.js";

/** Anthropic's documented minimum cacheable prompt for Sonnet/Opus models (Haiku: 2,048). */
export const ANTHROPIC_MIN_TOKENS = 1024;
/** How many content blocks before a breakpoint Anthropic checks for an earlier cache entry. */
export const LOOKBACK_BLOCKS = 20;

/**
 * Anthropic's prompt-cache rule over a request's layout, for a bench without the provider's wire fake: a cache
 * entry is written at each `cacheBreakpoint` whose prefix is at least the minimum length; a request reads the
 * longest cached prefix found at a breakpoint or up to 20 blocks before one; what lies between that and the last
 * breakpoint is written (1.25× input), the rest is plain input. Each message is one block; `size` counts a
 * message's tokens. Stateful: one instance is one cache (one organisation, one model).
 */
export function anthropicCacheRule(size: (m: ChatMessage) => number) {
  const entries = new Set<string>();
  return {
    usage(messages: readonly ChatMessage[]): TokenUsage {
      const ends: number[] = [];
      const hashes: string[] = [];
      const h = createHash("sha256");
      let at = 0;
      for (const m of messages) {
        at += size(m);
        h.update(`${m.role}\u0000${m.content}\u0001`);
        ends.push(at);
        hashes.push(h.copy().digest("hex"));
      }
      const marks = messages.flatMap((m, i) => (m.cacheBreakpoint ? [i] : []));
      let read = 0;
      for (const b of marks)
        for (let j = b; j >= Math.max(0, b - LOOKBACK_BLOCKS); j--)
          if (entries.has(hashes[j]!) && ends[j]! > read) read = ends[j]!;
      const last = marks.at(-1);
      let write = 0;
      if (last !== undefined && ends[last]! >= ANTHROPIC_MIN_TOKENS && ends[last]! > read) write = ends[last]! - read;
      for (const b of marks) if (ends[b]! >= ANTHROPIC_MIN_TOKENS) entries.add(hashes[b]!);
      return {
        prompt: at,
        completion: 0,
        ...(read > 0 ? { cacheRead: read } : {}),
        ...(write > 0 ? { cacheWrite: write } : {}),
      };
    },
  };
}
