import { applyEdits } from "./apply-edits.js";
import { renderReflection } from "./reflection.js";
import type {
  ApplyOptions,
  ApplyOutcome,
  EditFailure,
  EditFormat,
  FileSnapshot,
  ParseContext,
  ParseResult,
} from "./types.js";

export interface ParseAndApplyResult {
  format: EditFormat;
  parse: ParseResult;
  /** The apply's outcome; `failed` holds apply failures (and `no-edits`), not the parse failures in `parse.failures`. */
  outcome: ApplyOutcome;
  /** The one LLM-facing text for every parse and apply failure, or null when nothing failed. */
  reflection: string | null;
}

/**
 * Apply an already-parsed answer over a snapshot (through {@link applyEdits}); adds a `no-edits` failure when the
 * answer held no edit, no shell command and no parse failure (docs/behaviour.md#answers-without-edits-are-reported: Aider stays silent, #3645), and
 * renders the one reflection text.
 */
export function applyParsed(
  format: EditFormat,
  parse: ParseResult,
  snapshot: FileSnapshot,
  options: ApplyOptions & Pick<ParseContext, "fence">,
): ParseAndApplyResult {
  const outcome = applyEdits(format, snapshot, parse.edits, options);
  const failed = [...outcome.failed];
  if (parse.edits.length === 0 && parse.shell.length === 0 && parse.failures.length === 0)
    failed.push(noEditsFailure(format));
  const reflection = renderReflection([...parse.failures, ...failed], outcome.applied.length, options.fence);
  return { format, parse, outcome: { ...outcome, failed }, reflection };
}

/** Parse `text` with `format` and apply it: {@link applyParsed} after `format.parse`. */
export function parseAndApplyWith(
  format: EditFormat,
  text: string,
  snapshot: FileSnapshot,
  options: ApplyOptions & ParseContext,
): ParseAndApplyResult {
  return applyParsed(format, format.parse(text, options), snapshot, options);
}

function noEditsFailure(format: EditFormat): EditFailure {
  return {
    path: "",
    reason: "no-edits",
    message: `Your answer contained no edits in the ${format.name} format, so nothing was changed. If the request needs code changes, reply with edits in the required format.`,
  };
}
