import type { EditFormat } from "../types.js";
import { applyWhole } from "./apply-whole.js";
import { parseWhole } from "./parse-whole.js";
import { wholePrompts } from "./prompts.js";

/** `whole`: the model sends each changed file complete, named on the line before its fence. */
export const wholeFormat: EditFormat = {
  name: "whole",
  prompts: wholePrompts,
  parse: parseWhole,
  apply: (snapshot, edits) => applyWhole(snapshot, edits),
};
