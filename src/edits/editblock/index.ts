import type { EditFormat } from "../types.js";
import { applyEditBlocks } from "./apply-editblock.js";
import { parseEditBlocks } from "./parse-editblock.js";
import { diffFencedPrompts, diffPrompts } from "./prompts.js";

/** `diff`: SEARCH/REPLACE blocks, the filename before the fence. */
export const editBlockFormat: EditFormat = {
  name: "diff",
  prompts: diffPrompts,
  parse: parseEditBlocks,
  apply: applyEditBlocks,
};

/** `diff-fenced`: the same blocks with the filename inside the fence; same parser and applier (docs/behaviour.md#diff-fenced). */
export const diffFencedFormat: EditFormat = {
  name: "diff-fenced",
  prompts: diffFencedPrompts,
  parse: parseEditBlocks,
  apply: applyEditBlocks,
};
