import type { EditFormat } from "../types.js";
import { applyWhole } from "./apply-whole.js";
import { parseWhole } from "./parse-whole.js";

/** `whole`: the model sends each changed file complete, named on the line before its fence. */
export const wholeFormat: EditFormat = {
  name: "whole",
  parse: parseWhole,
  apply: (snapshot, edits) => applyWhole(snapshot, edits),
};
