import { describe, expect, it } from "@jest/globals";
import { anthropicCacheRule } from "../../bench/lib/anthropic-cache-rule.js";
import type { ChatMessage } from "../../src/llm/types.js";

/** Each message's tokens are its length: the rule's arithmetic is then easy to read. */
const rule = () => anthropicCacheRule((m) => m.content.length);
const msg = (role: ChatMessage["role"], n: number, cacheBreakpoint = false): ChatMessage => ({
  role,
  content: role[0]!.repeat(n),
  ...(cacheBreakpoint ? { cacheBreakpoint } : {}),
});

describe("the bench's Anthropic cache rule", () => {
  it("writes up to the last breakpoint, then reads the previous request's prefix back and writes only the rest", () => {
    const r = rule();
    const round1 = [msg("system", 1500), msg("user", 500, true), msg("assistant", 10), msg("user", 40, true)];
    expect(r.usage(round1)).toEqual({ prompt: 2050, completion: 0, cacheWrite: 2050 });
    const round2 = [...round1, msg("assistant", 60), msg("user", 30, true)];
    expect(r.usage(round2)).toEqual({ prompt: 2140, completion: 0, cacheRead: 2050, cacheWrite: 90 });
  });

  it("misses when an earlier message changed, and caches nothing below the minimum length or without breakpoints", () => {
    const r = rule();
    r.usage([msg("system", 1500, true), msg("user", 100, true)]);
    const rewritten = [msg("system", 1499, true), msg("user", 101, true)];
    expect(r.usage(rewritten).cacheRead).toBeUndefined();
    expect(r.usage([msg("system", 500, true), msg("user", 100, true)])).toEqual({ prompt: 600, completion: 0 });
    expect(rule().usage([msg("system", 5000), msg("user", 100)])).toEqual({ prompt: 5100, completion: 0 });
  });

  it("finds an entry up to 20 blocks before a breakpoint, not further", () => {
    const r = rule();
    const head = [msg("system", 1200, true)];
    r.usage(head);
    const unmarked = [msg("system", 1200)]; // the same block, its breakpoint moved to the end
    const near = [...unmarked, ...Array.from({ length: 19 }, () => msg("user", 1)), msg("user", 1, true)];
    expect(r.usage(near).cacheRead).toBe(1200);
    const far = [...unmarked, ...Array.from({ length: 25 }, () => msg("assistant", 1)), msg("user", 1, true)];
    expect(rule().usage(far).cacheRead).toBeUndefined(); // a fresh cache: nothing to find
    const r2 = rule();
    r2.usage(head);
    expect(r2.usage(far).cacheRead).toBeUndefined(); // the entry is 26 blocks back
  });
});
