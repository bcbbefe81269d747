import type { EditFormat } from "../types.js";
import { applyPatch } from "./apply-patch.js";
import { parsePatch } from "./parse-patch.js";
import { patchPrompts } from "./prompts.js";

/** `patch`: OpenAI's V4A apply_patch format (`*** Begin Patch` … `*** End Patch`). */
export const patchFormat: EditFormat = {
  name: "patch",
  prompts: patchPrompts,
  parse: parsePatch,
  apply: (snapshot, edits) => applyPatch(snapshot, edits),
};
