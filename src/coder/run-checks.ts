import type { CheckReport } from "../checks/types.js";
import type { CoderDeps } from "./coder-deps.js";
import type { CoderOptions, CoderStage } from "./types.js";

export type ChecksResult =
  /** `skipped`: setup/lint/test were not run, and why (the sandbox cannot run here). */
  | { kind: "ok"; skipped?: string }
  | { kind: "failed"; report: CheckReport }
  /** A setup command failed: the environment is broken, not something the model can fix by editing. */
  | { kind: "setup-failed"; report: CheckReport };

export interface RunChecksInput {
  deps: CoderDeps;
  options: CoderOptions;
  /** Files edited by this run that still exist. */
  files: readonly string[];
  round: number;
  /** Whether setup commands already ran in this run (they run once, before the first command check). */
  setupDone: boolean;
}

/**
 * The signals after a clean edit round, in order, stopping at the first failure: the built-in syntax check of each
 * edited file, setup (once), each lint command, then the test command when `autoTest` is on (docs/behaviour.md#checks).
 * Lint and test look at every file this run edited, not only this round's, so a file broken earlier stays visible.
 */
export async function runChecks(input: RunChecksInput): Promise<{ result: ChecksResult; setupDone: boolean }> {
  const { deps, options, files, round } = input;
  const progress = (stage: CoderStage, detail?: string): void => deps.onProgress?.({ stage, round, detail });

  progress("syntax");
  const snapshot = await deps.workspace.read(files);
  for (const path of files) {
    const content = snapshot.files.get(path);
    if (content === undefined) continue;
    const report = await deps.syntaxCheck(path, content);
    if (report && !report.ok) record(input, "syntax", report);
    if (report && !report.ok) return { result: { kind: "failed", report }, setupDone: input.setupDone };
  }

  const wantsCommands = options.lintCommands.length > 0 || (options.autoTest && !!options.testCommand);
  let setupDone = input.setupDone;
  // Fail closed: the repository's own commands never run outside the sandbox unless the operator turned it off.
  const mode = wantsCommands ? await deps.sandboxMode?.() : undefined;
  if (mode?.startsWith("unavailable: ")) {
    const why = mode.slice("unavailable: ".length);
    deps.onTranscript?.({ kind: "note", round, text: `lint, test and setup not run: the sandbox is unavailable (${why})` });
    return { result: { kind: "ok", skipped: `the sandbox cannot run on the app's host (${why})` }, setupDone };
  }
  if (wantsCommands && !setupDone) {
    setupDone = true;
    for (const command of options.setupCommands ?? []) {
      progress("test", `setup: ${command}`);
      const report = await deps.runCheck({ kind: "setup", command, files, timeoutMs: options.commandTimeoutMs });
      record(input, "setup", report);
      if (!report.ok) return { result: { kind: "setup-failed", report }, setupDone };
    }
  }

  for (const command of options.lintCommands) {
    progress("lint", command);
    const report = await deps.runCheck({ kind: "lint", command, files, timeoutMs: options.commandTimeoutMs });
    record(input, "lint", report);
    if (!report.ok) return { result: { kind: report.environmentError ? "setup-failed" : "failed", report }, setupDone };
  }

  if (options.autoTest && options.testCommand) {
    progress("test", options.testCommand);
    const command = options.testCommand;
    const report = await deps.runCheck({ kind: "test", command, files, timeoutMs: options.commandTimeoutMs });
    record(input, "test", report);
    // A tool that cannot run is not something an edit fixes: stop instead of looping (docs/behaviour.md#aider-bugs-we-avoid (#16)).
    if (!report.ok) return { result: { kind: report.environmentError ? "setup-failed" : "failed", report }, setupDone };
  }
  return { result: { kind: "ok" }, setupDone };
}

/** A check's report into the run's transcript (issue #34). */
function record(input: RunChecksInput, check: "syntax" | "lint" | "test" | "setup", report: CheckReport): void {
  input.deps.onTranscript?.({
    kind: "check",
    round: input.round,
    check,
    command: report.command,
    ok: report.ok,
    ...(report.exitCode !== undefined ? { exitCode: report.exitCode } : {}),
    output: report.output,
  });
}
