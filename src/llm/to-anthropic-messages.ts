import type { ChatMessage } from "./types.js";

/** Anthropic's content blocks, as its Messages API takes them (the subset we send). */
export type AnthropicBlock =
  | { type: "text"; text: string; cache_control?: { type: "ephemeral" } }
  | {
      type: "image";
      source: { type: "base64"; media_type: string; data: string };
      cache_control?: { type: "ephemeral" };
    };

export interface AnthropicMessage {
  role: "user" | "assistant";
  content: AnthropicBlock[];
}

export interface AnthropicPrompt {
  /** Absent when the request has no leading system message. */
  system?: AnthropicBlock[];
  messages: AnthropicMessage[];
}

/** Anthropic (and Claude on Bedrock and Vertex) accepts at most four `cache_control` breakpoints per request. */
export const MAX_BREAKPOINTS = 4;

/**
 * Our messages as a Messages API request. Leading system messages become `system` blocks; a later system message
 * (a note between rounds) becomes user text, since the API has no system turns. Consecutive messages of one role
 * become one turn of several blocks, which keeps each block's breakpoint where it was; an empty text (refused by
 * the API) is sent as `(empty)`. With `cache`, each message
 * marked `cacheBreakpoint` puts `cache_control` on its last block: at most {@link MAX_BREAKPOINTS}, keeping the first
 * (the stable system prefix, shared by every run) and the latest ones (the previous rounds, read by the next one).
 * Every text goes through `redact`. Pure.
 */
export function toAnthropicMessages(
  messages: readonly ChatMessage[],
  o: { cache: boolean; redact: (text: string) => string },
): AnthropicPrompt {
  const kept = o.cache ? keptBreakpoints(messages) : new Set<number>();
  const system: AnthropicBlock[] = [];
  const turns: AnthropicMessage[] = [];
  let leading = true;
  messages.forEach((m, i) => {
    const blocks = blocksOf(m, o.redact);
    if (kept.has(i)) blocks[blocks.length - 1]!.cache_control = { type: "ephemeral" };
    if (m.role === "system" && leading) {
      system.push(...blocks);
      return;
    }
    leading = false;
    const role = m.role === "assistant" ? "assistant" : "user";
    const last = turns[turns.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  });
  return { ...(system.length ? { system } : {}), messages: turns };
}

/** Indexes of the breakpoints sent: all when within the limit, else the first and the latest three. */
function keptBreakpoints(messages: readonly ChatMessage[]): Set<number> {
  const marked = messages.flatMap((m, i) => (m.cacheBreakpoint ? [i] : []));
  if (marked.length <= MAX_BREAKPOINTS) return new Set(marked);
  return new Set([marked[0]!, ...marked.slice(-(MAX_BREAKPOINTS - 1))]);
}

function blocksOf(m: ChatMessage, redact: (text: string) => string): AnthropicBlock[] {
  const text = redact(m.content);
  const blocks: AnthropicBlock[] = [{ type: "text", text: text || "(empty)" }];
  if (m.role === "user") for (const image of m.images ?? []) blocks.push(imageBlock(image.dataUrl));
  return blocks;
}

/** A `data:image/png;base64,…` URL as an image block (the endpoint fetches nothing). */
function imageBlock(dataUrl: string): AnthropicBlock {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(dataUrl);
  if (!match) throw new Error("An image for the model is not a base64 data: URL.");
  return { type: "image", source: { type: "base64", media_type: match[1]!, data: match[2]! } };
}
