import { applyRound } from "./apply-round.js";
import { askModel } from "./ask-model.js";
import { checkRound } from "./check-step.js";
import type { CoderDeps } from "./coder-deps.js";
import { progress, startRun, type CoderRun, type Step } from "./coder-session.js";
import { commitRun } from "./commit-run.js";
import { reproduceTest } from "./reproduce-test.js";
import { deadlineProblem } from "./run-budget.js";
import { editedContents, editedStats, noChanges, resultBase } from "./run-result.js";
import type { CoderOptions, CoderResult, FileStat } from "./types.js";

/**
 * One headless request: prompt → LLM → parse → apply → syntax/lint/test → reflect, at most `maxReflections`
 * times (so at most 1 + maxReflections LLM calls), then one commit when the final state is clean
 * (docs/behaviour.md#the-edit-loop). Expected failures come back as an outcome; only programming errors throw.
 */
export async function runCoder(options: CoderOptions, deps: CoderDeps): Promise<CoderResult> {
  const result = await runRounds(options, deps);
  noteBlockedHosts(result, deps);
  // The sandbox as it ended up: the first round may start while the checkout's files are still being written, before
  // a container's image is chosen from them (an issue's devcontainer), and the status says what the commands ran in.
  if (!result.sandbox) return result;
  const sandbox = await deps.sandboxMode?.();
  return sandbox ? { ...result, sandbox } : result;
}

/**
 * The transcript records what the sandbox's network policy refused during the run, whether or not a command failed
 * because of it (a failed one also says so in its output).
 */
function noteBlockedHosts(result: CoderResult, deps: CoderDeps): void {
  const blocked = result.network?.blocked ?? [];
  if (!blocked.length) return;
  const hosts = blocked.map(
    (b) => `${b.host} (${b.connections} connection${b.connections === 1 ? "" : "s"}: ${b.reason})`,
  );
  deps.onTranscript?.({
    kind: "note",
    round: result.reflections,
    text: `the sandbox's network policy (${result.network!.policy}) refused: ${hosts.join(", ")}`,
  });
}

async function runRounds(options: CoderOptions, deps: CoderDeps): Promise<CoderResult> {
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
      return askModel(run, step.message);
    case "apply":
      return applyRound(run, step);
    case "check":
      return checkRound(run, step.deleted);
    case "llm-error":
      return { ...resultBase(run), outcome: "llm-error", errorKind: step.errorKind, message: step.message };
    case "commit":
      return commit(run);
  }
}

/** The run's one commit, with the subject written while the checks ran when the files are still those. */
async function commit(run: CoderRun): Promise<CoderResult> {
  const { state } = run;
  progress(run, "committing");
  // The subject asked for while the checks ran, and its diff, if the files are still what it was written for.
  const asked = run.early && run.early.matches(await editedContents(run)) ? run.early : null;
  const early = asked ? { subject: asked.subject, diff: asked.diff, from: asked.before } : null;
  const resultOf = (commit: { sha: string; subject: string }, editedFiles: FileStat[]): CoderResult => ({
    ...resultBase(run),
    outcome: "changed",
    editedFiles,
    commit,
  });
  const committed = await commitRun(run.deps, run.options, [...state.edited], state.explanation, early, resultOf);
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
