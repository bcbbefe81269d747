import { getEditFormat } from "../../edits/registry.js";
import type { EditFormatName, FormatPrompts } from "../../edits/types.js";
import { architectPrompts } from "./architect-prompts.js";
import { askPrompts } from "./ask-prompts.js";

/** Prompt mode: an edit format, `ask` for answer-only requests, or `architect` for a plan. */
export type PromptMode = EditFormatName | "ask" | "architect";

/**
 * The prompt set for a mode: an edit format's own prompts (they live with its parser and applier under
 * src/edits/<format>/), or the coder's answer-only `ask` and plan-only `architect` prompts.
 */
export function getPrompts(mode: PromptMode): FormatPrompts {
  if (mode === "ask") return askPrompts;
  if (mode === "architect") return architectPrompts;
  return getEditFormat(mode).prompts;
}
