import { checkCommandsOf, checkKey } from "./check-commands.js";
import type { CoderRun } from "./coder-session.js";
import type { CheckRunRecord, CoderResult, FileStat } from "./types.js";

/** What every result of a run carries, whatever its outcome: usage, reflections, what ran and what was added. */
export function resultBase(run: CoderRun) {
  const { state } = run;
  return {
    reflections: state.reflections,
    tokens: state.usage.tokens,
    costUsd: state.usage.costUsd,
    explanation: state.explanation,
    shell: [...new Set(state.shell)],
    elapsedMs: run.deps.now() - run.start,
    ...(run.sandbox ? { sandbox: run.sandbox } : {}),
    ...networkOf(run),
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

/** The run ends without a change: the model's explanation (or last reply) is the answer. */
export function noChanges(run: CoderRun): CoderResult {
  return { ...resultBase(run), outcome: "no-changes", answer: run.state.explanation || run.state.lastText };
}

/** The files this run edited as they are now (null: deleted). */
export async function editedContents(run: CoderRun): Promise<Map<string, string | null>> {
  const paths = [...run.state.edited];
  const snapshot = await run.deps.workspace.read(paths);
  return new Map(paths.map((path) => [path, snapshot.files.get(path) ?? null]));
}

/** Added/removed lines of each file this run edited. */
export async function editedStats(run: CoderRun): Promise<FileStat[]> {
  return run.state.edited.size ? run.deps.diffStats([...run.state.edited]) : [];
}

/** The sandbox's network, when repository commands ran in one (not when it was off or unavailable). */
function networkOf(run: CoderRun): { network?: NonNullable<CoderResult["network"]> } {
  const mode = run.sandbox;
  if (!mode || mode === "off" || mode.startsWith("unavailable")) return {};
  const report = run.deps.egressReport?.();
  return report ? { network: report } : {};
}
