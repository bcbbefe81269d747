import type { Fence } from "../edits/types.js";
import type { ChatMessage } from "../llm/types.js";
import { buildMessages, pair, type BuildMessagesInput } from "./build-messages.js";
import { FILES_UPDATE_ACK, FILES_UPDATE_PREFIX, filesDeletedText } from "./prompts/shared-text.js";
import { renderFiles, type FileContent } from "./render-files.js";
import { INSTRUCTIONS_ACK } from "./repo-instructions.js";

/**
 * The messages of one run, kept so that every round only appends to the request before it: the previous request
 * and its reply are a prefix of the next request, byte for byte, which is what a provider's prompt cache serves.
 * Between rounds nothing earlier is re-rendered: a chat file the round's edits changed (or a file added to the chat)
 * is shown again in a new message at the end, and the repo map and read-only files stay as first sent.
 */
export interface RoundLayout {
  /** The fence the files were rendered with; a new file needing another fence makes the run start over. */
  fence: Fence;
  /** Every request message and reply so far, in order (without cache breakpoints). */
  messages: ChatMessage[];
  /** How many of `messages` are the run's stable part: system prompt … chat files. */
  stable: number;
  /** Index of the previous request's last message (its request or reflection), or -1 in the first round. */
  lastRequestEnd: number;
  /** Each chat file's content as the model last saw it. */
  shown: Map<string, string>;
  /** The repository instructions as last sent (a later round adds those of new chat files' folders). */
  instructions: string | null;
}

/** Most cache breakpoints a request may carry (Anthropic's limit). */
export const MAX_BREAKPOINTS = 4;

/** A run's first request (or a new start after the fence changed): the full build, remembered as the layout. */
export function startLayout(input: BuildMessagesInput): { layout: RoundLayout; messages: ChatMessage[] } {
  const messages = buildMessages(input);
  const layout: RoundLayout = {
    fence: input.fence,
    messages,
    stable: messages.length - input.done.length - 1,
    lastRequestEnd: -1,
    shown: new Map(input.chatFiles.map((f) => [f.path, f.content])),
    instructions: input.instructions ?? null,
  };
  return { layout, messages };
}

export interface NextRound {
  fence: Fence;
  /** The chat files as they are now, in chat order. */
  chatFiles: readonly FileContent[];
  instructions: string | null;
  message: string;
}

/**
 * The next request: the layout's messages, then what changed since (new instructions, changed, added or deleted chat
 * files) as new messages, then the round's message. Null when the files now need another fence: the earlier listing
 * would be wrong, so the caller starts over with {@link startLayout}. Pure.
 */
export function extendLayout(
  layout: RoundLayout,
  next: NextRound,
): { layout: RoundLayout; messages: ChatMessage[] } | null {
  if (next.fence[0] !== layout.fence[0] || next.fence[1] !== layout.fence[1]) return null;
  const added: ChatMessage[] = [];
  if (next.instructions && next.instructions !== layout.instructions) {
    added.push(...pair(next.instructions, INSTRUCTIONS_ACK));
  }
  const changed = next.chatFiles.filter((f) => layout.shown.get(f.path) !== f.content);
  const present = new Set(next.chatFiles.map((f) => f.path));
  const deleted = [...layout.shown.keys()].filter((path) => !present.has(path));
  if (changed.length > 0 || deleted.length > 0) {
    const files = changed.length > 0 ? FILES_UPDATE_PREFIX + renderFiles(changed, next.fence) : "";
    const gone = deleted.length > 0 ? filesDeletedText(deleted) : "";
    added.push(...pair([files, gone].filter(Boolean).join("\n"), FILES_UPDATE_ACK));
  }
  const messages = [...layout.messages, ...added, { role: "user" as const, content: next.message }];
  const shown = new Map(layout.shown);
  for (const path of deleted) shown.delete(path);
  for (const f of changed) shown.set(f.path, f.content);
  return {
    layout: {
      ...layout,
      messages,
      lastRequestEnd: lastUserIndex(layout.messages),
      shown,
      instructions:
        next.instructions && next.instructions !== layout.instructions ? next.instructions : layout.instructions,
    },
    messages,
  };
}

/** The layout after the model's reply to its last request: the reply becomes part of the next request's prefix. */
export function withReply(layout: RoundLayout, text: string): RoundLayout {
  return { ...layout, messages: [...layout.messages, { role: "assistant", content: text }] };
}

/**
 * The request as sent, with cache breakpoints on the last stable message, on the end of the previous request (what
 * the previous call wrote to the cache, read back now) and on the end of this one (written now, for the next round):
 * at most {@link MAX_BREAKPOINTS}. The run's `last` call (no reflection left) leaves its end unmarked: no round will
 * read it, and a cache write costs more than plain input (1.25× on Anthropic's rule). Pure; the layout's own
 * messages stay unmarked.
 */
export function markBreakpoints(layout: RoundLayout, messages: readonly ChatMessage[], last = false): ChatMessage[] {
  const end = last ? -1 : messages.length - 1;
  const marks = new Set([layout.stable - 1, layout.lastRequestEnd, end].filter((i) => i >= 0));
  const chosen = [...marks].sort((a, b) => a - b).slice(-MAX_BREAKPOINTS);
  return messages.map((m, i) => (chosen.includes(i) ? { ...m, cacheBreakpoint: true } : m));
}

function lastUserIndex(messages: readonly ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === "user") return i;
  return -1;
}
