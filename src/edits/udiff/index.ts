import type { EditFormat } from "../types.js";
import { applyUdiff } from "./apply-udiff.js";
import { parseUdiff } from "./parse-udiff.js";

/** `udiff`: unified diffs, hunk line numbers ignored. */
export const udiffFormat: EditFormat = { name: "udiff", parse: parseUdiff, apply: (snapshot, edits) => applyUdiff(snapshot, edits) };
