import type { SandboxMode } from "../exec/types.js";
import type { Fence } from "../edits/types.js";
import { countTokens as defaultCountTokens } from "../llm/count-tokens.js";
import type { ChatMessage, CompletionResult } from "../llm/types.js";
import { findMentions } from "../repomap/mentioned-idents.js";
import { applyReply } from "./apply-reply.js";
import { buildMessages } from "./build-messages.js";
import { callModel } from "./call-model.js";
import { chooseFence } from "./choose-fence.js";
import type { CoderDeps } from "./coder-deps.js";
import { commitContext, commitRun } from "./commit-run.js";
import { afterApply, decideNext, finalOutcome, judgeReply, type LoopState, type RoundReport } from "./decide-next.js";
import { startEarlySubject, type EarlySubject } from "./early-subject.js";
import { extractExplanation } from "./extract-explanation.js";
import { findFileMentions } from "./find-file-mentions.js";
import { addUsage, budgetProblem, deadlineProblem, emptyUsage, type UsageTotals } from "./run-budget.js";
import { reproduceTest } from "./reproduce-test.js";
import { runChecks } from "./run-checks.js";
import { instructionsForRound, type InstructionUse } from "./repo-instructions.js";
import { selectFilesToAdd } from "./select-files-to-add.js";
import { checkCommandsOf, checkKey } from "./check-commands.js";
import type { CheckRunRecord, CoderOptions, CoderResult, CoderStage, FileStat } from "./types.js";

const TRUNCATED_ADVICE =
  "The model's answer was cut off at its output token limit, so none of its edits were applied. Ask for a smaller change, use an edit format that sends less text (diff rather than whole), or use a model with a larger output limit.";

/** Everything one run remembers between its steps. */
interface CoderState extends LoopState {
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
  /** Why setup/lint/test were not run (no sandbox available), when they were not. */
  checksSkipped?: string;
  /** The models that answered (issue #35: a fallback model may answer for the configured one). */
  models: string[];
  /** What became of each setup/lint/test command (issue #30: the status says what ran). */
  checkRuns: Map<string, CheckRunRecord>;
}

/** The state plus what does not change during a run. */
interface CoderRun {
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
  /** The repository's instruction files shown so far (issue #32), by path. */
  instructionUses: Map<string, InstructionUse>;
}

/** The next thing a run does; the deadline is checked once before each. */
type Step =
  | { kind: "ask"; message: string }
  | { kind: "apply"; reply: CompletionResult; fence: Fence; filesAdded: string[] }
  | { kind: "check"; deleted: string[] }
  | { kind: "llm-error"; errorKind: string; message: string }
  | { kind: "commit" };

/**
 * One headless request: prompt → LLM → parse → apply → syntax/lint/test → reflect, at most `maxReflections`
 * times (so at most 1 + maxReflections LLM calls), then one commit when the final state is clean
 * (docs/behaviour.md#the-edit-loop). Expected failures come back as an outcome; only programming errors throw.
 */
export async function runCoder(options: CoderOptions, deps: CoderDeps): Promise<CoderResult> {
  const run = await startRun(options, deps);
  let message = options.message;
  if (options.reproduceTest) {
    // fix-ci: the model starts from the failure as it reproduces here (the commit body keeps the request as asked).
    const reproduced = await reproduceTest(deps, options);
    if (reproduced) {
      message = `${message}\n\n${reproduced.note}`;
      run.state.setupDone ||= reproduced.setupDone;
    }
  }
  let step: Step = { kind: "ask", message };
  for (;;) {
    // The one deadline check: before every step, and so also between a failed model call and its report (an
    // abort caused by the run's own deadline or cancellation is a time-out, not a model failure).
    const late = deadlineProblem({
      aborted: deps.signal?.aborted ?? false,
      elapsedMs: deps.now() - run.start,
      maxWallMs: options.budget.maxWallMs,
    });
    if (late) return { ...resultBase(run), outcome: "timed-out", message: late, editedFiles: await editedStats(run) };
    const next = await runStep(run, step);
    if ("outcome" in next) return next;
    step = next;
  }
}

async function runStep(run: CoderRun, step: Step): Promise<Step | CoderResult> {
  switch (step.kind) {
    case "ask":
      return ask(run, step.message);
    case "apply":
      return apply(run, step);
    case "check":
      return check(run, step.deleted);
    case "llm-error":
      return { ...resultBase(run), outcome: "llm-error", errorKind: step.errorKind, message: step.message };
    case "commit":
      return commit(run);
  }
}

async function startRun(options: CoderOptions, deps: CoderDeps): Promise<CoderRun> {
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

/** One round's model call: the messages from the current files, the reply judged before anything is applied. */
async function ask(run: CoderRun, message: string): Promise<Step | CoderResult> {
  const { options, deps, state } = run;
  state.round += 1;
  const snapshot = await deps.workspace.read([...state.chatFiles, ...options.readFiles]);
  const present = (paths: readonly string[]) =>
    paths.flatMap((path) => {
      const content = snapshot.files.get(path);
      return content === undefined ? [] : [{ path, content }];
    });
  const chatContents = present(state.chatFiles);
  const readContents = present(options.readFiles);
  const fence = chooseFence([...chatContents, ...readContents].map((f) => f.content));
  const instructions = instructionsForRound(
    options.instructions,
    state.chatFiles,
    deps.countTokens ?? defaultCountTokens,
    run.instructionUses,
  );
  const messages = buildMessages({
    mode: options.askOnly ? (options.architect ? "architect" : "ask") : options.editFormat,
    fence,
    chatFiles: chatContents,
    readFiles: readContents,
    repoMap: await repoMap(run),
    untrustedContext: options.untrustedContext,
    ...(options.prContext ? { prContext: options.prContext } : {}),
    instructions,
    ...(options.images ? { images: options.images } : {}),
    done: state.done,
    message,
  });

  progress(run, "thinking");
  const maxWall = options.budget.maxWallMs;
  const remainingMs = maxWall === undefined ? null : maxWall - (deps.now() - run.start);
  deps.onTranscript?.({ kind: "request", round: state.round, model: options.model, messages });
  const call = await callModel({ deps, model: options.model, messages, round: state.round, remainingMs });
  if (!call.ok) {
    deps.onTranscript?.({ kind: "model-error", round: state.round, message: call.message });
    return { kind: "llm-error", errorKind: call.reason, message: call.message };
  }
  const reply = call.value;
  deps.onTranscript?.({
    kind: "reply",
    round: state.round,
    text: reply.text,
    ...(reply.finishReason ? { finishReason: reply.finishReason } : {}),
    tokens: { prompt: reply.usage.prompt, completion: reply.usage.completion },
  });
  state.usage = addUsage(state.usage, reply.usage, reply.costUsd);
  const { tokens, costUsd } = state.usage;
  const spent = costUsd === null ? "" : `, $${costUsd.toFixed(4)}`;
  const answeredBy = reply.model ?? options.model;
  if (!state.models.includes(answeredBy)) state.models.push(answeredBy);
  progress(
    run,
    "thinking",
    `${answeredBy}: ${tokens.prompt} prompt + ${tokens.completion} completion tokens so far${spent}`,
  );
  state.lastText = reply.text;

  const verdict = judgeReply({
    truncated: reply.finishReason === "length",
    budgetProblem: budgetProblem(options.budget, state.usage),
    askOnly: options.askOnly === true,
  });
  if (verdict.kind === "truncated") {
    return { ...resultBase(run), outcome: "llm-error", errorKind: "truncated", message: TRUNCATED_ADVICE };
  }
  if (verdict.kind === "over-budget") {
    return {
      ...resultBase(run),
      outcome: "budget-exceeded",
      message: verdict.message,
      editedFiles: await editedStats(run),
    };
  }
  state.done.push({ role: "user", content: message }, { role: "assistant", content: reply.text });
  state.explanation = extractExplanation(reply.text, fence);
  if (verdict.kind === "answer")
    return { ...resultBase(run), explanation: reply.text, outcome: "no-changes", answer: reply.text };

  // Files named in the reply are added only while another call is allowed to use them.
  const canAskAgain = state.reflections < options.maxReflections;
  const mentioned = canAskAgain ? findFileMentions(reply.text, mentionContext(run)) : [];
  const selection = await selectFilesToAdd({
    candidates: mentioned,
    workspace: deps.workspace,
    countTokens: deps.countTokens ?? defaultCountTokens,
  });
  for (const path of selection.skipped) state.ignored.add(path);
  return { kind: "apply", reply, fence, filesAdded: selection.added };
}

/** Apply the reply's edits and update the chat; then check, or decide straight away. */
async function apply(run: CoderRun, step: Extract<Step, { kind: "apply" }>): Promise<Step | CoderResult> {
  const { options, deps, state } = run;
  progress(run, "applying");
  const applied = await applyReply({
    deps,
    options,
    text: step.reply.text,
    fence: step.fence,
    chatFiles: state.chatFiles,
    repoFiles: run.repoFiles,
    withheld: new Set(step.filesAdded),
  });
  state.shell.push(...applied.shell);
  deps.onTranscript?.({
    kind: "edits",
    round: state.round,
    written: applied.written,
    deleted: applied.deleted,
    failures: applied.failures.map((f) => ({ path: f.path, message: f.message })),
    reflection: applied.reflection,
  });
  for (const path of applied.written) state.edited.add(path);
  for (const [path, content] of applied.before) if (!state.original.has(path)) state.original.set(path, content);
  if (applied.written.length > 0) state.uncheckedEdits = true;
  // New files join the chat so the next round shows them; deleted ones leave it.
  const chat = state.chatFiles;
  for (const path of applied.written) if (!chat.includes(path)) chat.push(path);
  for (const path of applied.deleted) if (chat.includes(path)) chat.splice(chat.indexOf(path), 1);
  chat.push(...step.filesAdded.filter((p) => !chat.includes(p)));
  state.addedOnRequest.push(...step.filesAdded.filter((p) => !state.addedOnRequest.includes(p)));

  const next = afterApply(
    {
      filesAdded: step.filesAdded,
      wroteFiles: applied.written.length > 0,
      failures: applied.failures,
      reflection: applied.reflection,
    },
    state.uncheckedEdits,
  );
  return next.kind === "run-checks" ? { kind: "check", deleted: applied.deleted } : decide(run, next);
}

/** Syntax, setup, lint and test over the files this run edited that still exist. */
async function check(run: CoderRun, deleted: readonly string[]): Promise<Step | CoderResult> {
  const { options, deps, state } = run;
  const existing = [...state.edited].filter((p) => !deleted.includes(p) && state.chatFiles.includes(p));
  // While the repository's commands run, the model writes the subject of the commit that follows if they pass.
  const early =
    runsCommands(options) && options.commit
      ? startEarlySubject(deps, state.original, await editedContents(run), commitContext(options, state.explanation))
      : null;
  const checks = await runChecks({
    deps,
    options,
    files: existing,
    round: state.round,
    setupDone: state.setupDone,
    record: state.checkRuns,
  });
  state.setupDone = checks.setupDone;
  state.uncheckedEdits = false;
  const result = checks.result;
  if (result.kind === "ok" && result.skipped) state.checksSkipped = result.skipped;
  let next: Step | CoderResult;
  if (result.kind === "setup-failed") {
    next = { ...resultBase(run), outcome: "checks-failed", report: result.report, editedFiles: await editedStats(run) };
  } else if (result.kind === "ok") {
    next = await decide(run, { kind: "checks-passed" });
  } else {
    const reflection = deps.renderCheckReflection(result.report, existing);
    next = await decide(run, { kind: "checks-failed", report: result.report, reflection });
  }
  // Kept only for the commit it was asked for; any other way on, its call is stopped.
  if ("kind" in next && next.kind === "commit") run.early = early;
  else early?.abort();
  return next;
}

/** Whether a round's checks run repository commands (lint, test), which take long enough to write a subject in. */
function runsCommands(options: CoderOptions): boolean {
  return checkCommandsOf(options).some((c) => c.kind !== "setup");
}

/** Ask again, or end the loop with its final outcome. */
async function decide(run: CoderRun, round: RoundReport): Promise<Step | CoderResult> {
  const decision = decideNext(run.state, round);
  run.state = decision.state;
  if (decision.next.kind === "ask") return decision.next;
  const final = finalOutcome(run.state);
  switch (final.kind) {
    case "commit":
      return { kind: "commit" };
    case "no-changes":
      return noChanges(run);
    case "edit-failed":
      return {
        ...resultBase(run),
        outcome: "edit-failed",
        failures: final.failures,
        editedFiles: await editedStats(run),
      };
    case "checks-failed":
      return {
        ...resultBase(run),
        outcome: "checks-failed",
        report: final.report,
        editedFiles: await editedStats(run),
      };
  }
}

async function commit(run: CoderRun): Promise<CoderResult> {
  const { state } = run;
  progress(run, "committing");
  // The subject asked for while the checks ran, and its diff, if the files are still what it was written for.
  const asked = run.early && run.early.matches(await editedContents(run)) ? run.early : null;
  const early = asked ? { subject: asked.subject, diff: asked.diff, from: asked.before } : null;
  const committed = await commitRun(run.deps, run.options, [...state.edited], state.explanation, early);
  if (committed.kind === "nothing-changed") return noChanges(run);
  if (committed.kind === "commit-failed") {
    return {
      ...resultBase(run),
      outcome: "checks-failed",
      report: committed.report,
      editedFiles: committed.editedFiles,
    };
  }
  return { ...resultBase(run), outcome: "changed", editedFiles: committed.editedFiles, commit: committed.commit };
}

/** The repo map for the current chat files, rebuilt only when they changed; a failure leaves it empty. */
async function repoMap(run: CoderRun): Promise<string | null> {
  const { options, deps, state } = run;
  if (!deps.repoMap || options.mapTokens <= 0) return null;
  const key = state.chatFiles.join("\n");
  if (state.map?.key === key) return state.map.text;
  progress(run, "mapping");
  try {
    // Every word of 4+ letters may be an identifier; file names and stems name files (docs/behaviour.md#repo-map).
    const mentions = findMentions(options.message, run.repoFiles, state.chatFiles);
    const request = mapRequestContext(run);
    const result = await deps.repoMap({
      chatFiles: state.chatFiles,
      mentionedFiles: [...new Set([...run.fromRequest, ...mentions.mentionedFiles])],
      mentionedIdents: mentions.mentionedIdents,
      mapTokens: options.mapTokens,
      requestText: request.text,
      ...(request.hintFiles.length ? { hintFiles: request.hintFiles } : {}),
    });
    state.map = { key, text: result.text };
  } catch {
    state.map = { key, text: "" }; // the map is an aid: a failure to build it must not fail the run
  }
  return state.map.text;
}

/** Most characters of an issue's text the map's ranking reads (its words, not its length, are what count). */
const MAX_RANKING_TEXT = 8_000;

/**
 * What the map's request-aware ranking gets: the request and the untrusted context's text (an issue's title, body
 * and comments), and as hints the context's files plus the files that text names. Those only steer the map: unlike
 * the files the request names, a file named in an issue body never joins the chat by that alone.
 */
function mapRequestContext(run: CoderRun): { text: string; hintFiles: string[] } {
  const { options } = run;
  const untrusted = (options.untrustedContext ?? [])
    .map((c) => c.text)
    .join("\n")
    .slice(0, MAX_RANKING_TEXT);
  const named = untrusted ? findFileMentions(untrusted, mentionContext(run)) : [];
  return {
    text: `${options.message}\n${untrusted}`.trim(),
    hintFiles: [...new Set([...(options.hintFiles ?? []), ...named])],
  };
}

function mentionContext(run: CoderRun) {
  const { state } = run;
  return {
    repoFiles: run.repoFiles,
    chatFiles: state.chatFiles,
    readFiles: run.options.readFiles,
    ignored: state.ignored,
  };
}

function progress(run: CoderRun, stage: CoderStage, detail?: string): void {
  run.deps.onProgress?.({ stage, round: run.state.round, detail });
}

function resultBase(run: CoderRun) {
  const { state } = run;
  return {
    reflections: state.reflections,
    tokens: state.usage.tokens,
    costUsd: state.usage.costUsd,
    explanation: state.explanation,
    shell: [...new Set(state.shell)],
    elapsedMs: run.deps.now() - run.start,
    ...(run.sandbox ? { sandbox: run.sandbox } : {}),
    ...(state.checksSkipped ? { checksSkipped: state.checksSkipped } : {}),
    ...(state.models.length ? { models: [...state.models] } : {}),
    ...(run.instructionUses.size ? { instructionFiles: [...run.instructionUses.values()] } : {}),
    ...checkRunsOf(run),
    ...(state.addedOnRequest.length ? { filesAddedOnRequest: [...state.addedOnRequest] } : {}),
  };
}

/** Every command of the run with what became of it; one never reached (no clean edit round) is "not run". */
function checkRunsOf(run: CoderRun): { checkRuns?: CheckRunRecord[] } {
  const commands = checkCommandsOf(run.options);
  if (!commands.length) return {};
  return {
    checkRuns: commands.map(
      (c) =>
        run.state.checkRuns.get(checkKey(c)) ?? {
          ...c,
          status: "not-run" as const,
          note: "no edit reached the checks",
        },
    ),
  };
}

function noChanges(run: CoderRun): CoderResult {
  return { ...resultBase(run), outcome: "no-changes", answer: run.state.explanation || run.state.lastText };
}

/** The files this run edited as they are now (null: deleted). */
async function editedContents(run: CoderRun): Promise<Map<string, string | null>> {
  const paths = [...run.state.edited];
  const snapshot = await run.deps.workspace.read(paths);
  return new Map(paths.map((path) => [path, snapshot.files.get(path) ?? null]));
}

async function editedStats(run: CoderRun): Promise<FileStat[]> {
  return run.state.edited.size ? run.deps.diffStats([...run.state.edited]) : [];
}
