import type { EditFormat } from "../types.js";
import { applyUdiff } from "./apply-udiff.js";
import { parseUdiff } from "./parse-udiff.js";
import { udiffPrompts } from "./prompts.js";

/** `udiff`: unified diffs (`---`/`+++` headers, `@@` hunks without line numbers), applied once per unique match. */
export const udiffFormat: EditFormat = {
  name: "udiff",
  prompts: udiffPrompts,
  parse: parseUdiff,
  apply: (snapshot, edits, options) => applyUdiff(snapshot, edits, options),
};
