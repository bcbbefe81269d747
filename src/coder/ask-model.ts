import type { Fence } from "../edits/types.js";
import { countTokens as defaultCountTokens } from "../llm/count-tokens.js";
import type { ChatMessage, CompletionResult } from "../llm/types.js";
import { callModel } from "./call-model.js";
import { chooseFence } from "./choose-fence.js";
import { mentionContext, progress, type CoderRun, type Step } from "./coder-session.js";
import { judgeReply } from "./loop-decisions.js";
import { extractExplanation, mentionableText } from "./extract-explanation.js";
import { findFileMentions } from "./find-file-mentions.js";
import { instructionsForRound } from "./repo-instructions.js";
import { extendLayout, markBreakpoints, startLayout, withReply } from "./round-layout.js";
import { roundRepoMap } from "./round-repo-map.js";
import { addUsage, budgetProblem } from "./run-budget.js";
import { editedStats, resultBase } from "./run-result.js";
import { selectFilesToAdd } from "./select-files-to-add.js";
import type { CoderResult } from "./types.js";

const TRUNCATED_ADVICE =
  "The model's answer was cut off at its output token limit, so none of its edits were applied. Ask for a smaller change, use an edit format that sends less text (diff rather than whole), or use a model with a larger output limit.";

/** One round's model call: the messages from the current files, the reply judged before anything is applied. */
export async function askModel(run: CoderRun, message: string): Promise<Step | CoderResult> {
  const { options, deps, state } = run;
  state.round += 1;
  const { messages, fence } = await roundMessages(run, message);
  progress(run, "thinking");
  const maxWall = options.budget.maxWallMs;
  const remainingMs = maxWall === undefined ? null : maxWall - (deps.now() - run.start);
  deps.onTranscript?.({ kind: "request", round: state.round, model: options.model, messages });
  const caching = options.promptCache !== false;
  const call = await callModel({
    deps,
    model: options.model,
    // With no reflection left, no later round reads this request's end.
    messages:
      caching && state.layout
        ? markBreakpoints(state.layout, messages, state.reflections >= options.maxReflections)
        : messages,
    round: state.round,
    remainingMs,
    cacheKey: caching ? run.cacheKey : null,
  });
  if (!call.ok) {
    deps.onTranscript?.({ kind: "model-error", round: state.round, message: call.message });
    return { kind: "llm-error", errorKind: call.reason, message: call.message };
  }
  const reply = call.value;
  recordReply(run, reply);

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
  if (state.layout) state.layout = withReply(state.layout, reply.text);
  state.explanation = extractExplanation(reply.text, fence);
  if (verdict.kind === "answer")
    return { ...resultBase(run), explanation: reply.text, outcome: "no-changes", answer: reply.text };

  // Files named in the reply are added only while another call is allowed to use them.
  const canAskAgain = state.reflections < options.maxReflections;
  const mentioned = canAskAgain ? findFileMentions(mentionableText(reply.text, fence), mentionContext(run)) : [];
  const selection = await selectFilesToAdd({
    candidates: mentioned,
    workspace: deps.workspace,
    countTokens: deps.countTokens ?? defaultCountTokens,
  });
  for (const path of selection.skipped) state.ignored.add(path);
  return { kind: "apply", reply, fence, filesAdded: selection.added };
}

/**
 * The round's messages. The first round builds them from the chat and read-only files as they are, the map and the
 * instructions; each later round appends to that request what changed since (round-layout), so the previous
 * request stays a prefix of this one. Only a change of fence (a file now holding the old one) starts over.
 */
async function roundMessages(run: CoderRun, message: string): Promise<{ messages: ChatMessage[]; fence: Fence }> {
  const { options, deps, state } = run;
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
  const next = state.layout
    ? extendLayout(state.layout, { fence, chatFiles: chatContents, instructions, message })
    : null;
  const built =
    next ??
    startLayout({
      mode: options.askOnly ? (options.architect ? "architect" : "ask") : options.editFormat,
      fence,
      chatFiles: chatContents,
      readFiles: readContents,
      repoMap: await roundRepoMap(run),
      untrustedContext: options.untrustedContext,
      ...(options.prContext ? { prContext: options.prContext } : {}),
      instructions,
      ...(options.images ? { images: options.images } : {}),
      done: state.done,
      message,
    });
  state.layout = built.layout;
  return { messages: built.messages, fence };
}

/** Note a reply: the transcript, the usage so far (told as progress), the model that answered, the last text. */
function recordReply(run: CoderRun, reply: CompletionResult): void {
  const { options, deps, state } = run;
  deps.onTranscript?.({
    kind: "reply",
    round: state.round,
    text: reply.text,
    ...(reply.finishReason ? { finishReason: reply.finishReason } : {}),
    tokens: {
      prompt: reply.usage.prompt,
      completion: reply.usage.completion,
      ...(reply.usage.cacheRead ? { cacheRead: reply.usage.cacheRead } : {}),
      ...(reply.usage.cacheWrite ? { cacheWrite: reply.usage.cacheWrite } : {}),
    },
  });
  state.usage = addUsage(state.usage, reply.usage, reply.costUsd);
  const { tokens, costUsd } = state.usage;
  const spent = costUsd === null ? "" : `, $${costUsd.toFixed(4)}`;
  const cached = tokens.cacheRead ? ` (${tokens.cacheRead} prompt tokens from cache)` : "";
  const answeredBy = reply.model ?? options.model;
  if (!state.models.includes(answeredBy)) state.models.push(answeredBy);
  progress(
    run,
    "thinking",
    `${answeredBy}: ${tokens.prompt} prompt + ${tokens.completion} completion tokens so far${cached}${spent}`,
  );
  state.lastText = reply.text;
}
