import { applyReply } from "./apply-reply.js";
import { progress, type CoderRun, type Step } from "./coder-session.js";
import { afterApply } from "./loop-decisions.js";
import { closeRound } from "./close-round.js";
import type { CoderResult } from "./types.js";

/** Apply the reply's edits and update the chat; then check, or decide straight away. */
export async function applyRound(run: CoderRun, step: Extract<Step, { kind: "apply" }>): Promise<Step | CoderResult> {
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
  return next.kind === "run-checks" ? { kind: "check", deleted: applied.deleted } : closeRound(run, next);
}
