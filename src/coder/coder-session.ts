import { randomUUID } from "node:crypto";
import type { SandboxMode } from "../exec/types.js";
import type { Fence } from "../edits/types.js";
import { countTokens as defaultCountTokens } from "../llm/count-tokens.js";
import type { ChatMessage, CompletionResult } from "../llm/types.js";
import type { CoderDeps } from "./coder-deps.js";
import type { LoopState } from "./loop-decisions.js";
import type { EarlySubject } from "./early-subject.js";
import { findFileMentions } from "./find-file-mentions.js";
import type { InstructionUse } from "./repo-instructions.js";
import type { RoundLayout } from "./round-layout.js";
import { emptyUsage, type UsageTotals } from "./run-budget.js";
import { selectFilesToAdd } from "./select-files-to-add.js";
import type { CheckRunRecord, CoderOptions, CoderStage } from "./types.js";

/** Everything one run remembers between its steps. */
export interface CoderState extends LoopState {
  edited: Set<string>;
  /** Each edited file as the run found it, before its first edit (null: the run created it). */
  original: Map<string, string | null>;
  round: number;
  /** Files in the chat: the model sees their contents and may edit them. */
  chatFiles: string[];
  /** Files the model named that were too many or too large to add; never offered again. */
  ignored: Set<string>;
  /** The conversation so far (requests and replies), resent every round. */
  done: ChatMessage[];
  usage: UsageTotals;
  explanation: string;
  lastText: string;
  shell: string[];
  setupDone: boolean;
  /** Something was written since the last check. */
  uncheckedEdits: boolean;
  map: { key: string; text: string } | null;
  /** Files the model asked for (named in a reply) and the run added to the chat, in order. */
  addedOnRequest: string[];
  /** The run's requests and replies so far, which each round only appends to (null before the first call). */
  layout: RoundLayout | null;
  /** Why setup/lint/test were not run (no sandbox available), when they were not. */
  checksSkipped?: string;
  /** The models that answered (a fallback model may answer for the configured one). */
  models: string[];
  /** What became of each setup/lint/test command (the status says what ran). */
  checkRuns: Map<string, CheckRunRecord>;
}

/** The state plus what does not change during a run. */
export interface CoderRun {
  options: CoderOptions;
  deps: CoderDeps;
  start: number;
  repoFiles: string[];
  /** Files added up front because the request named them. */
  fromRequest: string[];
  state: CoderState;
  /** Where the repository's commands run (bubblewrap, off, or unavailable and why). */
  sandbox?: SandboxMode;
  /** The subject asked for while the last round's checks ran, for the commit that follows them. */
  early: EarlySubject | null;
  /** The repository's instruction files shown so far, by path. */
  instructionUses: Map<string, InstructionUse>;
  /** Sent with every call when prompt caching is on, so OpenAI-style providers route the rounds to one cache. */
  cacheKey: string;
}

/** The next thing a run does; the deadline is checked once before each. */
export type Step =
  | { kind: "ask"; message: string }
  | { kind: "apply"; reply: CompletionResult; fence: Fence; filesAdded: string[] }
  | { kind: "check"; deleted: string[] }
  | { kind: "llm-error"; errorKind: string; message: string }
  | { kind: "commit" };

/** A run at its start: its state empty, the repository listed, the files the request names in the chat. */
export async function startRun(options: CoderOptions, deps: CoderDeps): Promise<CoderRun> {
  const start = deps.now();
  const state: CoderState = {
    reflections: 0,
    maxReflections: options.maxReflections,
    problem: null,
    noEditsReflected: false,
    edited: new Set(),
    original: new Map(),
    round: 0,
    chatFiles: [...new Set(options.files)],
    ignored: new Set(),
    done: [],
    usage: emptyUsage(),
    explanation: "",
    lastText: "",
    shell: [],
    setupDone: false,
    uncheckedEdits: false,
    map: null,
    models: [],
    checkRuns: new Map(),
    addedOnRequest: [],
    layout: null,
  };
  const repoFiles = await deps.workspace.listFiles();
  const sandbox = await deps.sandboxMode?.();
  const run: CoderRun = {
    options,
    deps,
    start,
    repoFiles,
    fromRequest: [],
    state,
    early: null,
    instructionUses: new Map(),
    cacheKey: options.cacheKey ?? `aider-bot-${randomUUID()}`,
    ...(sandbox ? { sandbox } : {}),
  };
  // Files the request itself names are added up front, as Aider does for user input (docs/behaviour.md#file-mentions).
  const fromRequest = await selectFilesToAdd({
    candidates: findFileMentions(options.message, mentionContext(run)),
    workspace: deps.workspace,
    countTokens: deps.countTokens ?? defaultCountTokens,
  });
  state.chatFiles.push(...fromRequest.added);
  run.fromRequest = fromRequest.added;
  return run;
}

/** What file mentions are read against: the repository, the chat, the read-only files and the files refused. */
export function mentionContext(run: CoderRun) {
  const { state } = run;
  return {
    repoFiles: run.repoFiles,
    chatFiles: state.chatFiles,
    readFiles: run.options.readFiles,
    ignored: state.ignored,
  };
}

/** Tell the caller which stage the run is in (and, optionally, how far). */
export function progress(run: CoderRun, stage: CoderStage, detail?: string): void {
  run.deps.onProgress?.({ stage, round: run.state.round, detail });
}
