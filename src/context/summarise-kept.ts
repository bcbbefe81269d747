import type { ChatMessage } from "../llm/types.js";
import { renderUntrusted } from "../coder/render-untrusted.js";
import type { SourceAllocation } from "./allocate-context.js";

/** The weak model, injected: summarise `text` in at most `maxTokens` tokens. */
export type Summarise = (text: string, maxTokens: number) => Promise<string>;

/**
 * Summarise the items the allocation marked `summarise` (earlier runs that did not fit), as Aider summarises its chat
 * history with the weak model. A failed summary falls back to shortening and says so in the note: the run goes on.
 */
export async function summariseKept(
  allocations: readonly SourceAllocation[],
  summarise: Summarise,
): Promise<SourceAllocation[]> {
  return Promise.all(
    allocations.map(async (a) => {
      let failed = 0;
      const kept = await Promise.all(
        a.kept.map(async (k) => {
          if (k.mode !== "summarise") return k;
          try {
            const text = (await summarise(k.item.text, k.tokens)).trim();
            if (text) return { ...k, mode: "summarised" as const, text };
          } catch {
            // Summarising is an optimisation: the shortened text below is still correct, and the note says so.
          }
          failed++;
          return { ...k, mode: "truncated" as const };
        }),
      );
      const extra = failed ? ` The weak model could not summarise ${failed} of them; they were shortened instead.` : "";
      return { ...a, kept, note: a.note ? a.note + extra : a.note };
    }),
  );
}

/**
 * The weak model's request for one summary (pure), after Aider's history summary prompt: first person, keep the
 * request, what was changed (files, commit) and the outcome; drop the rest. The text is untrusted (it quotes users).
 */
export function summaryMessages(text: string, maxTokens: number): ChatMessage[] {
  return [
    {
      role: "system",
      content: `Briefly summarise this earlier run of aider-bot on a pull request, in the first person as the bot ("You asked me to …, I changed …"). Keep what was asked, which files and commit changed, and the outcome (pushed, failed, reverted). Keep function names, file names and error messages exactly. Use at most ${Math.max(20, Math.floor(maxTokens * 0.75))} words. Answer with the summary only.`,
    },
    { role: "user", content: renderUntrusted([{ label: "earlier run", text }]) },
  ];
}
