import type { EditFormatName } from "../../edits/types.js";
import { architectPrompts } from "./architect-prompts.js";
import { askPrompts } from "./ask-prompts.js";
import { diffFencedPrompts } from "./diff-fenced-prompts.js";
import { diffPrompts } from "./diff-prompts.js";
import type { FormatPrompts } from "./format-prompts.js";
import { patchPrompts } from "./patch-prompts.js";
import { udiffPrompts } from "./udiff-prompts.js";
import { wholePrompts } from "./whole-prompts.js";

/** Prompt mode: an edit format, `ask` for answer-only requests, or `architect` for a plan (issue #34). */
export type PromptMode = EditFormatName | "ask" | "architect";

const PROMPTS: Record<PromptMode, FormatPrompts> = {
  diff: diffPrompts,
  "diff-fenced": diffFencedPrompts,
  whole: wholePrompts,
  udiff: udiffPrompts,
  patch: patchPrompts,
  ask: askPrompts,
  architect: architectPrompts,
};

/** The prompt set for an edit format or `ask`. */
export function getPrompts(mode: PromptMode): FormatPrompts {
  return PROMPTS[mode];
}
