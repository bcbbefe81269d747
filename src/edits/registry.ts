import { parseAndApplyWith, type ParseAndApplyResult } from "./apply-parsed.js";
import { diffFencedFormat, editBlockFormat } from "./editblock/index.js";
import { patchFormat } from "./patch/index.js";
import { udiffFormat } from "./udiff/index.js";
import { wholeFormat } from "./whole/index.js";
import {
  EDIT_FORMAT_NAMES,
  type ApplyOptions,
  type EditFormat,
  type EditFormatName,
  type FileSnapshot,
  type ParseContext,
} from "./types.js";

export { applyParsed, type ParseAndApplyResult } from "./apply-parsed.js";

const FORMATS: Record<EditFormatName, EditFormat> = {
  diff: editBlockFormat,
  "diff-fenced": diffFencedFormat,
  whole: wholeFormat,
  udiff: udiffFormat,
  patch: patchFormat,
};

/**
 * The format registered under an Aider name; unknown names fail with the list of valid ones.
 * `getEditFormat("diff").name === "diff"`
 */
export function getEditFormat(name: string): EditFormat {
  if (!Object.hasOwn(FORMATS, name))
    throw new Error(`Unknown edit format "${name}". Valid formats: ${EDIT_FORMAT_NAMES.join(", ")}.`);
  return FORMATS[name as EditFormatName];
}

/** Parse and apply an answer in one call (see `applyParsed`): the convenience the coder loop uses. */
export function parseAndApply(
  formatName: string,
  text: string,
  snapshot: FileSnapshot,
  options: ApplyOptions & ParseContext,
): ParseAndApplyResult {
  return parseAndApplyWith(getEditFormat(formatName), text, snapshot, options);
}
