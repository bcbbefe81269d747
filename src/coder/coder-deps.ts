import type { ImpliedTool, RunnerFallback } from "../checks/discover/types.js";
import type { CheckReport } from "../checks/types.js";
import type {
  ApplyOptions,
  ApplyOutcome,
  EditFormatName,
  FileSnapshot,
  ParseContext,
  ParseResult,
} from "../edits/types.js";
import type { EgressReport, SandboxMode } from "../exec/types.js";
import type { LlmClient } from "../llm/types.js";
import type { CommitRequest, CommitResult, Workspace } from "../workspace/types.js";
import type { TranscriptSink } from "./transcript/transcript-event.js";
import type { BaselineResult } from "../checks/compare-baseline.js";
import type { FileChange } from "../checks/setup-inputs.js";
import type { CheckCommandSpec, CoderProgress, CoderResult, FileStat } from "./types.js";
import type { CommitChanges } from "../workspace/read-commit-changes.js";

/** What the edit registry's `parseAndApply` returns (see `src/edits/registry.ts`). */
export interface EditRoundResult {
  parse: ParseResult;
  outcome: ApplyOutcome;
  /** One LLM-facing text for every parse/apply failure of the answer, or null when all went well. */
  reflection: string | null;
}

/** A lint/test/setup command to run in the checkout. */
export interface CheckCommandRequest {
  /** `setup` reports come back with kind "test" or "lint" as the runner likes; the coder only reads `ok`/`output`. */
  kind: "setup" | "lint" | "test";
  command: string;
  /** Files edited in this run (lint commands get them appended; test and setup ignore them). */
  files: readonly string[];
  timeoutMs: number;
  /** Folder to run in, relative to the checkout (a workflow step's `working-directory`); absent: the root. */
  cwd?: string;
  /** Run as CI runs its scripts (`bash -e`): a command discovered from the repository's CI, not a configured one. */
  ciShell?: boolean;
  /** What stands in for it when its Python project runner is not there. */
  fallback?: RunnerFallback;
  /** An implied tool install: served from the repository's tools shelf where the sandbox keeps one. */
  tool?: ImpliedTool;
  /** Stops the command (a test run ahead while a failure's verdict was awaited, no longer wanted). */
  signal?: AbortSignal;
  /**
   * The file list the run has read stays as it is (an early setup command, run while the model writes: what it
   * creates, a `node_modules/`, must not reach this round's map). Absent: the next list asks git again.
   */
  keepsListing?: boolean;
}

/**
 * The change's setup commands started while the model writes (see startEarlySetup): the apply tells it what it is
 * about to write, and the check stage takes each command's result from it instead of running it again.
 */
export interface EarlySetupPort {
  /** Before the apply writes these: an early command that reads one is killed, its end awaited, its result dropped. */
  beforeWrite(changes: readonly FileChange[]): Promise<void>;
  /**
   * The command's early report (awaited if it still runs), or null: it did not run early, or `changed` (every path
   * the run changed) reaches what it read — then it runs now, as before.
   */
  take(spec: CheckCommandSpec, changed: readonly FileChange[]): Promise<CheckReport | null>;
}

export interface RepoMapRequest {
  chatFiles: readonly string[];
  mentionedFiles: readonly string[];
  mentionedIdents: readonly string[];
  mapTokens: number;
  /** The request's text (and an issue's), for the request-aware ranking; absent: the ranking is Aider's. */
  requestText?: string;
  /** Files the context or the request's untrusted text points at (see CoderOptions.hintFiles). */
  hintFiles?: readonly string[];
}

/**
 * Everything the coder loop touches, injected so the loop is testable with fakes and so it does not import the
 * engine, checks, git or LLM modules directly. The lead wires these to the real implementations.
 */
export interface CoderDeps {
  llm: LlmClient;
  workspace: Workspace;
  /** Parse only (cheap): the coder needs the edits' paths to read a snapshot before applying. */
  parse(format: EditFormatName, text: string, ctx: ParseContext): ParseResult;
  /** Parse + apply over the snapshot (pure). */
  parseAndApply(format: EditFormatName, text: string, snapshot: FileSnapshot, options: ApplyOptions): EditRoundResult;
  /**
   * Built-in syntax check; null when the language is not supported. With `before` (the file as the run found it),
   * errors on lines that did not parse before either are not the edit's.
   */
  syntaxCheck(path: string, content: string, options?: { before?: string }): Promise<CheckReport | null>;
  runCheck(req: CheckCommandRequest): Promise<CheckReport>;
  /** Where `runCheck` runs commands; an `unavailable: …` mode makes the coder skip them. Absent: run them. */
  sandboxMode?(): Promise<SandboxMode>;
  /** The sandbox's network policy and the connections it refused so far (read when the run ends). */
  egressReport?(): EgressReport;
  /**
   * The same command's result on the base (the commit the change starts from), run while the model writes its first
   * answer; null when the base was not run for it (no baseline, a cancelled or failed base run). `roots` are the
   * checkouts' folders, removed from outputs before they are compared.
   */
  baseline?: {
    lookup(spec: CheckCommandSpec): Promise<BaselineResult | null>;
    roots: readonly string[];
    /** The change's commands are running: the base starts none until released (or until a lookup waits for it). */
    hold?(): () => void;
  };
  /** The change's setup, started while the model writes (absent: setup runs at the check stage only). */
  earlySetup?: EarlySetupPort;
  /** LLM-facing text for a failed report. */
  renderCheckReflection(report: CheckReport, files: readonly string[]): string;
  repoMap?(req: RepoMapRequest): Promise<{ text: string; rankedFiles: string[] }>;
  commit(req: CommitRequest): Promise<CommitResult>;
  /** `git diff` of these paths against HEAD (new files included). */
  diffText(paths: readonly string[]): Promise<string>;
  diffStats(paths: readonly string[]): Promise<FileStat[]>;
  /**
   * For a run that commits: the diff (`diffText`'s text, "" when nothing changed) and the commit, in fewer git
   * processes than `diffStats` + `diffText` + `commit`. May stage the new files. Absent: those three are used.
   */
  prepareCommit?(
    paths: readonly string[],
    /** A diff of these paths the coder made itself, from `from` to the files now; used when it is git's own change. */
    made?: { diff: string; from: ReadonlyMap<string, string | null> },
  ): Promise<{
    diff: string;
    commit(req: Omit<CommitRequest, "paths">): Promise<CommitResult>;
    /** The commit `commit(req)` would make, read without git; null when git alone may not decide it. */
    ahead?(req: Omit<CommitRequest, "paths">, maxBytes: number): Promise<CommitChanges | null>;
  }>;
  /**
   * The run's commit published without a local commit first (the App, through GitHub's API: run/publish/commit-ahead.ts).
   * `offer` gets the commit as git would make it, the run's result as it will be once it is made, and how to make the
   * local commit should git have to push after all (its sha; null when git could not); it starts the publication and
   * says true (the coder then makes no commit of its own), or says false (the run would not publish that commit so).
   */
  publishAhead?: {
    maxBytes: number;
    offer(commit: CommitChanges, result: CoderResult, commitLocally: () => Promise<string | null>): boolean;
  };
  /** Weak-model commit subject; null when no model answered. `signal` stops a call asked for early (early-subject). */
  generateCommitMessage?(diff: string, context: string, signal?: AbortSignal): Promise<string | null>;
  onProgress?(p: CoderProgress): void;
  /** Every request, answer, edit outcome and check of the run, for its transcript. */
  onTranscript?: TranscriptSink;
  /** Milliseconds; injected so tests control the wall clock. */
  now(): number;
  signal?: AbortSignal;
  /** Token counter for the added-files cap; defaults to `src/llm/count-tokens.ts`. */
  countTokens?(text: string): number;
}
