import type { CheckReport } from "../checks/types.js";
import type { EditFailure } from "../edits/types.js";
import { countTokens as defaultCountTokens } from "../llm/count-tokens.js";
import type { ChatMessage } from "../llm/types.js";
import { findMentions } from "../repomap/mentioned-idents.js";
import { applyReply } from "./apply-reply.js";
import { buildMessages } from "./build-messages.js";
import { callModel } from "./call-model.js";
import { chooseFence } from "./choose-fence.js";
import type { CoderDeps } from "./coder-deps.js";
import { commitRun } from "./commit-run.js";
import { extractExplanation } from "./extract-explanation.js";
import { findFileMentions } from "./find-file-mentions.js";
import { filesAddedText, NO_EDITS_TEXT } from "./prompts/shared-text.js";
import { addUsage, budgetProblem, emptyUsage } from "./run-budget.js";
import { runChecks } from "./run-checks.js";
import { selectFilesToAdd } from "./select-files-to-add.js";
import type { CoderOptions, CoderResult, CoderStage, FileStat } from "./types.js";

/** Why the last round asked again; null when the last round ended clean. */
type Problem =
  | { kind: "edits"; failures: EditFailure[] }
  | { kind: "check"; report: CheckReport }
  | { kind: "no-edits" }
  | { kind: "files-added"; files: string[] };

const TRUNCATED_ADVICE =
  "The model's answer was cut off at its output token limit, so none of its edits were applied. Ask for a smaller change, use an edit format that sends less text (diff rather than whole), or use a model with a larger output limit.";

/**
 * One headless request: prompt → LLM → parse → apply → syntax/lint/test → reflect, at most `maxReflections`
 * times (so at most 1 + maxReflections LLM calls), then one commit when the final state is clean (AIDER.md §0, §3,
 * A.10, A.14, A.17). Expected failures come back as an outcome; only programming errors throw.
 */
export async function runCoder(options: CoderOptions, deps: CoderDeps): Promise<CoderResult> {
  const start = deps.now();
  const count = deps.countTokens ?? defaultCountTokens;
  const mode = options.askOnly ? "ask" : options.editFormat;
  const chatFiles = [...new Set(options.files)];
  const ignored = new Set<string>();
  const done: ChatMessage[] = [];
  const edited = new Set<string>();
  let usage = emptyUsage();
  let reflections = 0;
  let explanation = "";
  let lastText = "";
  const shell: string[] = [];
  let setupDone = false;
  let noEditsReflected = false;
  let uncheckedEdits = false;
  let problem: Problem | null = null;
  let round = 0;
  let map: { key: string; text: string } | null = null;
  const sandbox = await deps.sandboxMode?.();
  let checksSkipped: string | undefined;

  const progress = (stage: CoderStage, detail?: string): void => deps.onProgress?.({ stage, round, detail });
  const base = () => ({
    reflections,
    tokens: usage.tokens,
    costUsd: usage.costUsd,
    explanation,
    shell: [...new Set(shell)],
    elapsedMs: deps.now() - start,
    ...(sandbox ? { sandbox } : {}),
    ...(checksSkipped ? { checksSkipped } : {}),
  });
  const editedStats = async (): Promise<FileStat[]> => (edited.size ? deps.diffStats([...edited]) : []);
  const timeProblem = (): string | null => {
    if (deps.signal?.aborted) return "The run was cancelled.";
    const max = options.budget.maxWallMs;
    if (max !== undefined && deps.now() - start > max) return `The run exceeded its time limit of ${max} ms.`;
    return null;
  };
  const timedOut = async (message: string): Promise<CoderResult> => ({
    ...base(),
    outcome: "timed-out",
    message,
    editedFiles: await editedStats(),
  });

  const repoFiles = await deps.workspace.listFiles();
  const mentionCtx = () => ({ repoFiles, chatFiles, readFiles: options.readFiles, ignored });
  // Files the request itself names are added up front, as Aider does for user input (AIDER.md §0 preproc).
  const fromRequest = await selectFilesToAdd({
    candidates: findFileMentions(options.message, mentionCtx()),
    workspace: deps.workspace,
    countTokens: count,
  });
  chatFiles.push(...fromRequest.added);

  const repoMap = async (): Promise<string | null> => {
    if (!deps.repoMap || options.mapTokens <= 0) return null;
    const key = chatFiles.join("\n");
    if (map?.key === key) return map.text;
    progress("mapping");
    try {
      // Aider's rule (AIDER.md §5.6): every word of 4+ letters may be an identifier; file names and stems name files.
      const mentions = findMentions(options.message, repoFiles, chatFiles);
      const result = await deps.repoMap({
        chatFiles,
        mentionedFiles: [...new Set([...fromRequest.added, ...mentions.mentionedFiles])],
        mentionedIdents: mentions.mentionedIdents,
        mapTokens: options.mapTokens,
      });
      map = { key, text: result.text };
    } catch {
      map = { key, text: "" }; // the map is an aid: a failure to build it must not fail the run
    }
    return map.text;
  };

  let message = options.message;
  for (;;) {
    round += 1;
    const late = timeProblem();
    if (late) return timedOut(late);

    const snapshot = await deps.workspace.read([...chatFiles, ...options.readFiles]);
    const present = (paths: readonly string[]) =>
      paths.flatMap((path) => {
        const content = snapshot.files.get(path);
        return content === undefined ? [] : [{ path, content }];
      });
    const chatContents = present(chatFiles);
    const readContents = present(options.readFiles);
    const fence = chooseFence([...chatContents, ...readContents].map((f) => f.content));
    const messages = buildMessages({
      mode,
      fence,
      chatFiles: chatContents,
      readFiles: readContents,
      repoMap: await repoMap(),
      untrustedContext: options.untrustedContext,
      done,
      message,
    });

    progress("thinking");
    const maxWall = options.budget.maxWallMs;
    const remainingMs = maxWall === undefined ? null : maxWall - (deps.now() - start);
    const call = await callModel({ deps, model: options.model, messages, round, remainingMs });
    if (call.kind === "llm-error") {
      // An abort caused by the run's own deadline or cancellation is a time-out, not a model failure.
      const late = timeProblem();
      if (late) return timedOut(late);
      return { ...base(), outcome: "llm-error", errorKind: call.errorKind, message: call.message };
    }
    const reply = call.reply;
    usage = addUsage(usage, reply.usage, reply.costUsd);
    const spent = usage.costUsd === null ? "" : `, $${usage.costUsd.toFixed(4)}`;
    progress("thinking", `${options.model}: ${usage.tokens.prompt} prompt + ${usage.tokens.completion} completion tokens so far${spent}`);
    lastText = reply.text;
    if (reply.finishReason === "length") {
      return { ...base(), outcome: "llm-error", errorKind: "truncated", message: TRUNCATED_ADVICE };
    }
    const overBudget = budgetProblem(options.budget, usage);
    if (overBudget) {
      return { ...base(), outcome: "budget-exceeded", message: overBudget, editedFiles: await editedStats() };
    }
    done.push({ role: "user", content: message }, { role: "assistant", content: reply.text });
    explanation = extractExplanation(reply.text, fence);
    if (options.askOnly) return { ...base(), explanation: reply.text, outcome: "no-changes", answer: reply.text };

    // Files named in the reply are added only while another call is allowed to use them.
    const canAskAgain = reflections < options.maxReflections;
    const mentioned = canAskAgain ? findFileMentions(reply.text, mentionCtx()) : [];
    const selection = await selectFilesToAdd({ candidates: mentioned, workspace: deps.workspace, countTokens: count });
    for (const path of selection.skipped) ignored.add(path);

    const late2 = timeProblem();
    if (late2) return timedOut(late2);
    progress("applying");
    const applied = await applyReply({
      deps,
      options,
      text: reply.text,
      fence,
      chatFiles,
      repoFiles,
      withheld: new Set(selection.added),
    });
    shell.push(...applied.shell);
    for (const path of applied.written) edited.add(path);
    if (applied.written.length > 0) uncheckedEdits = true;
    // New files join the chat so the next round shows them; deleted ones leave it.
    for (const path of applied.written) if (!chatFiles.includes(path)) chatFiles.push(path);
    for (const path of applied.deleted) if (chatFiles.includes(path)) chatFiles.splice(chatFiles.indexOf(path), 1);
    chatFiles.push(...selection.added.filter((p) => !chatFiles.includes(p)));

    let reflection: string | null = null;
    let stop = false;
    if (selection.added.length > 0) {
      reflection = filesAddedText(selection.added, applied.written.length > 0);
      if (applied.reflection) reflection += `\n\n${applied.reflection}`;
      problem = applied.failures.length ? { kind: "edits", failures: applied.failures } : { kind: "files-added", files: selection.added };
    } else if (applied.failures.length > 0) {
      reflection = applied.reflection;
      problem = { kind: "edits", failures: applied.failures };
    } else if (!uncheckedEdits) {
      // Nothing new to check (no edits, or edits that changed nothing). A.10: say so once; a second answer without
      // edits means the model considers the request done.
      if (noEditsReflected) stop = true;
      else reflection = NO_EDITS_TEXT;
      noEditsReflected = true;
      if (problem === null || problem.kind === "files-added") problem = { kind: "no-edits" };
    } else {
      const late3 = timeProblem();
      if (late3) return timedOut(late3);
      const existing = [...edited].filter((p) => !applied.deleted.includes(p) && chatFiles.includes(p));
      const checks = await runChecks({ deps, options, files: existing, round, setupDone });
      setupDone = checks.setupDone;
      uncheckedEdits = false;
      if (checks.result.kind === "ok" && checks.result.skipped) checksSkipped = checks.result.skipped;
      if (checks.result.kind === "setup-failed") {
        return { ...base(), outcome: "checks-failed", report: checks.result.report, editedFiles: await editedStats() };
      }
      if (checks.result.kind === "failed") {
        reflection = deps.renderCheckReflection(checks.result.report, existing);
        problem = { kind: "check", report: checks.result.report };
      } else {
        problem = null;
      }
    }

    if (stop || reflection === null || reflections >= options.maxReflections) break;
    reflections += 1;
    message = reflection;
  }

  if (problem?.kind === "edits") {
    return { ...base(), outcome: "edit-failed", failures: problem.failures, editedFiles: await editedStats() };
  }
  if (problem?.kind === "check") {
    return { ...base(), outcome: "checks-failed", report: problem.report, editedFiles: await editedStats() };
  }
  if (problem?.kind === "files-added" && edited.size > 0) {
    const failure: EditFailure = {
      path: problem.files.join(", "),
      reason: "file-missing",
      message: `The model asked to see ${problem.files.join(", ")} but no reflections were left to finish the edits.`,
    };
    return { ...base(), outcome: "edit-failed", failures: [failure], editedFiles: await editedStats() };
  }
  if (problem !== null || edited.size === 0) {
    return { ...base(), outcome: "no-changes", answer: explanation || lastText };
  }

  const late = timeProblem();
  if (late) return timedOut(late);
  progress("committing");
  const committed = await commitRun(deps, options, [...edited], explanation);
  if (committed.kind === "nothing-changed") return { ...base(), outcome: "no-changes", answer: explanation || lastText };
  if (committed.kind === "commit-failed") {
    return { ...base(), outcome: "checks-failed", report: committed.report, editedFiles: committed.editedFiles };
  }
  return { ...base(), outcome: "changed", editedFiles: committed.editedFiles, commit: committed.commit };
}
