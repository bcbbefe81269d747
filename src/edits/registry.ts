import { applyEdits } from "./apply-edits.js";
import { diffFencedFormat, editBlockFormat } from "./editblock/index.js";
import { patchFormat } from "./patch/index.js";
import { renderReflection } from "./reflection.js";
import { udiffFormat } from "./udiff/index.js";
import { wholeFormat } from "./whole/index.js";
import { EDIT_FORMAT_NAMES, type ApplyOptions, type ApplyOutcome, type EditFormat, type FileSnapshot, type ParseContext, type ParseResult } from "./types.js";

const FORMATS: Record<string, EditFormat> = {
  diff: editBlockFormat,
  "diff-fenced": diffFencedFormat,
  whole: wholeFormat,
  udiff: udiffFormat,
  patch: patchFormat,
};

/** The format registered under an Aider name; unknown names fail with the list of valid ones. */
export function getEditFormat(name: string): EditFormat {
  const format = FORMATS[name];
  if (!format) throw new Error(`Unknown edit format "${name}". Valid formats: ${EDIT_FORMAT_NAMES.join(", ")}.`);
  return format;
}

export interface ParseAndApplyResult {
  format: EditFormat;
  parse: ParseResult;
  outcome: ApplyOutcome;
  reflection: string | null;
}

/**
 * Apply an already-parsed answer over a snapshot; adds a `no-edits` failure when the answer had no edit at all
 * (AIDER.md A.10) and renders the one reflection text for every parse and apply failure.
 */
export function applyParsed(format: EditFormat, parse: ParseResult, snapshot: FileSnapshot, options: ApplyOptions & Pick<ParseContext, "fence">): ParseAndApplyResult {
  const outcome = applyEdits(format, snapshot, parse.edits, options);
  const failures = [...parse.failures, ...outcome.failed];
  if (parse.edits.length === 0 && parse.failures.length === 0) {
    failures.push({
      path: "",
      reason: "no-edits",
      message: `Your answer contained no edits in the ${format.name} format, so nothing was changed. If the request needs code changes, reply with edits in the required format.`,
    });
  }
  const withNoEdits = { ...outcome, failed: failures.filter((f) => !parse.failures.includes(f)) };
  return { format, parse, outcome: withNoEdits, reflection: renderReflection(failures, outcome.applied.length, options.fence) };
}

/** Parse and apply an answer in one call (parse first to learn which files to read, then apply). */
export function parseAndApply(formatName: string, text: string, snapshot: FileSnapshot, options: ApplyOptions & ParseContext): ParseAndApplyResult {
  const format = getEditFormat(formatName);
  return applyParsed(format, format.parse(text, options), snapshot, options);
}
