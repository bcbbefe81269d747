/**
 * Shared types of the edit engine. Everything under `src/edits/` is pure: it takes text and returns values,
 * never touching the filesystem. The workspace reads files into a {@link FileSnapshot} and writes back the
 * `changes` of an {@link ApplyOutcome}.
 */

/** Names of the edit formats, as Aider names them. */
export type EditFormatName = "diff" | "diff-fenced" | "whole" | "udiff" | "patch";

export const EDIT_FORMAT_NAMES: readonly EditFormatName[] = ["diff", "diff-fenced", "whole", "udiff", "patch"];

/** An opening and a closing fence, e.g. ["```", "```"] or ["````", "````"]. */
export type Fence = readonly [open: string, close: string];

/** One edit the model asked for. Paths are repo-relative with forward slashes, as the model wrote them (normalised). */
export type Edit =
  /** SEARCH/REPLACE (`diff`, `diff-fenced`). An empty `search` creates or appends. */
  | {
      kind: "replace";
      path: string;
      search: string;
      replace: string;
      /** Other ways to split the block when it held several divider-like lines (docs/behaviour.md#divider-lines-inside-content); tried when the main split does not match. */
      alternatives?: { search: string; replace: string }[];
    }
  /** A whole-file listing (`whole`). */
  | { kind: "whole"; path: string; content: string }
  /** One unified-diff hunk (`udiff`): `hunk` holds the body lines (' ', '-', '+' prefixed), no `@@` header. */
  | { kind: "udiff"; path: string; hunk: string }
  /** V4A patch operations (`patch`). `chunks` hold the body of an Update File section, verbatim. */
  | { kind: "patch-add"; path: string; content: string }
  | { kind: "patch-delete"; path: string }
  | { kind: "patch-update"; path: string; moveTo?: string; body: string };

/** Why an edit (or the whole answer) failed. */
export type FailureReason =
  | "no-match" // SEARCH / hunk / context not found
  | "ambiguous" // matched in several places; never applied to the first
  | "missing-filename" // could not tell which file a block is for
  | "malformed" // the answer does not follow the format's grammar
  | "unsafe-path" // absolute, `..`, symlink escape, `.git/`, protected glob
  | "file-missing" // target file does not exist (and the edit needs it)
  | "file-exists" // Add File / create on an existing file
  | "already-applied" // the REPLACE text is already there and SEARCH is not: nothing to do
  | "unreadable" // binary, non-UTF-8 or too large
  | "elided" // a whole-file listing that elides code ("... rest of file unchanged ...")
  | "over-limit" // the answer as a whole creates too many files or writes too many bytes: nothing was changed
  | "no-edits"; // the answer contained no edit at all when edits were asked for

export interface EditFailure {
  /** The path the edit named, or "" when unknown (missing filename). */
  path: string;
  reason: FailureReason;
  /** One human-readable sentence or two; also used in the LLM-facing reflection. */
  message: string;
  /** The edit that failed, when there was one. */
  edit?: Edit;
  /** Extra text for the reflection: "did you mean" lines, line numbers of ambiguous matches, … */
  detail?: string;
}

/** Which rung of the matching ladder found the place for an edit. */
export type MatchRung =
  | "exact"
  | "create" // new file
  | "append" // empty SEARCH on an existing file
  | "whole" // whole-file replacement
  | "trailing-whitespace"
  | "indent" // uniform leading-whitespace offset
  | "leading-blank" // dropped one leading blank line of SEARCH
  | "elision" // `...` pieces
  | "inner-whitespace" // whitespace normalised inside lines
  | "similarity" // opt-in fuzzy rung
  | "less-context" // udiff: retried with less context
  | "relative-indent" // udiff
  | "delete"
  | "move"
  | `cross-file:${string}`; // SEARCH found in another chat file (value: original path)

export interface AppliedEdit {
  /** The path that was really edited (after cross-file retry). */
  path: string;
  rung: MatchRung;
  edit: Edit;
}

/** The result of parsing one LLM answer. Parse errors do not throw: they are failures with reason `malformed`/`missing-filename`. */
export interface ParseResult {
  edits: Edit[];
  /** Shell commands the model suggested (never run by the bot; shown to the user). */
  shell: string[];
  failures: EditFailure[];
}

export interface ParseContext {
  fence: Fence;
  /** Files "in the chat" (editable), repo-relative, in chat order. Used for filename resolution. */
  chatFiles: readonly string[];
  /** All files of the repository (optional), used to accept path-like names that match a real file. */
  repoFiles?: readonly string[];
}

/**
 * The files an apply may read: repo-relative path → content, as read from disk (line endings as they are).
 * A path absent from `files` does not exist. `problems` marks paths that must not be touched (found by the
 * workspace: symlink escape, binary, non-UTF-8, …).
 */
export interface FileSnapshot {
  files: ReadonlyMap<string, string>;
  problems?: ReadonlyMap<string, { reason: FailureReason; message: string }>;
}

export interface ApplyOptions {
  /** Files in the chat, in order: cross-file retry candidates. */
  chatFiles: readonly string[];
  /** Globs no edit may touch (default: `.github/workflows/**`). */
  protectedPaths?: readonly string[];
  /** Opt-in similarity rung (off by default). */
  fuzzy?: boolean;
  fence?: Fence;
  /** Most new files one answer may create (default {@link DEFAULT_ANSWER_LIMITS}); past it nothing is changed. */
  maxNewFiles?: number;
  /** Most bytes (UTF-8, all written files together) one answer may write (default {@link DEFAULT_ANSWER_LIMITS}). */
  maxWriteBytes?: number;
}

/** Caps on what one answer may do to the checkout: a runaway answer fails clearly, before any write. */
export const DEFAULT_ANSWER_LIMITS = { maxNewFiles: 1_000, maxWriteBytes: 50_000_000 } as const;

/** path → new content; `null` deletes the file. */
export type FileChanges = Map<string, string | null>;

export interface ApplyOutcome {
  changes: FileChanges;
  applied: AppliedEdit[];
  failed: EditFailure[];
}

/** A format = a pure parser and a pure applier. */
/** One worked-example turn; the same shape as a chat message of the model client. */
export interface PromptTurn {
  role: "user" | "assistant";
  content: string;
}

/** The prompt set of one edit format (or the coder's `ask` and `architect` modes). Every part takes the fence chosen for this request. */
export interface FormatPrompts {
  /** The main system text: role, conventions, how to answer. */
  system(fence: Fence): string;
  /** Worked examples as real user/assistant turns (the "new code base" turn is added by build-messages). */
  examples(fence: Fence): PromptTurn[];
  /** A short restatement of the format rules, placed after the system text. */
  reminder(fence: Fence): string;
}

/** One edit format as a whole: its name, the parser and applier of its blocks, and the prompts that teach it. */
export interface EditFormat {
  name: EditFormatName;
  prompts: FormatPrompts;
  parse(text: string, ctx: ParseContext): ParseResult;
  apply(snapshot: FileSnapshot, edits: readonly Edit[], options: ApplyOptions): ApplyOutcome;
}
