import type { FormatPrompts } from "./format-prompts.js";
import { searchReplacePrompts } from "./diff-prompts.js";

/** `diff-fenced`: the path on the first line inside the fence (models such as Gemini prefer it, docs/behaviour.md#diff-fenced). */
export const diffFencedPrompts: FormatPrompts = searchReplacePrompts("inside-fence");
