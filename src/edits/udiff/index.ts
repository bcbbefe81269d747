import type { EditFormat } from "../types.js";
import { applyUdiff } from "./apply-udiff.js";
import { parseUdiff } from "./parse-udiff.js";

/** `udiff`: unified diffs (`---`/`+++` headers, `@@` hunks without line numbers), applied once per unique match. */
export const udiffFormat: EditFormat = {
  name: "udiff",
  parse: parseUdiff,
  apply: (snapshot, edits, options) => applyUdiff(snapshot, edits, options),
};
