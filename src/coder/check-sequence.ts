import { compareWithBaseline } from "../checks/compare-baseline.js";
import type { FileChange } from "../checks/setup-inputs.js";
import type { CheckReport } from "../checks/types.js";
import type { CoderDeps } from "./coder-deps.js";
import { checkCommandsOf, checkKey } from "./check-commands.js";
import { goesOnNote, ranInsteadOf } from "./runner-stand-ins.js";
import type { CheckCommandSpec, CheckRunRecord, CheckRunStatus, CoderOptions, CoderStage } from "./types.js";

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
  /** Every path this run changed (written, created, deleted): an early setup result that read one is not used. */
  changed?: readonly FileChange[];
  round: number;
  /** Whether setup commands already ran in this run (they run once, before the first command check). */
  setupDone: boolean;
  /** What became of each command, updated as they run (kept by the loop across rounds). */
  record?: Map<string, CheckRunRecord>;
  /** Each edited file as the run found it (null: created), so the syntax check blames only what the run broke. */
  original?: ReadonlyMap<string, string | null>;
}

/**
 * The signals after a clean edit round, in order, stopping at the first failure: the built-in syntax check of each
 * edited file, setup (once), each lint command, then the test command when `autoTest` is on (docs/behaviour.md#checks).
 * Lint and test look at every file this run edited, not only this round's, so a file broken earlier stays visible.
 */
export async function runChecks(input: RunChecksInput): Promise<{ result: ChecksResult; setupDone: boolean }> {
  const { deps, options, round } = input;
  const progress = (stage: CoderStage, detail?: string): void => deps.onProgress?.({ stage, round, detail });

  progress("syntax");
  const broken = await syntaxFailure(input);
  if (broken) return { result: { kind: "failed", report: broken }, setupDone: input.setupDone };

  const commands = checkCommandsOf(options);
  const wantsCommands = commands.some((c) => c.kind !== "setup");
  const setupDone = input.setupDone;
  const record = (spec: CheckCommandSpec, status: CheckRunStatus, note?: string, extra: Partial<CheckRunRecord> = {}) =>
    input.record?.set(checkKey(spec), { ...spec, status, ...(note ? { note } : {}), ...extra });
  // This round's lint and test commands start as "not run"; each one that runs says what it did.
  for (const c of commands) if (c.kind !== "setup") record(c, "not-run", "an earlier check failed");
  // Fail closed: the repository's own commands never run outside the sandbox unless the operator turned it off.
  const mode = wantsCommands ? await deps.sandboxMode?.() : undefined;
  if (mode?.startsWith("unavailable: ")) {
    const why = mode.slice("unavailable: ".length);
    const text = `lint, test and setup not run: the sandbox is unavailable (${why})`;
    deps.onTranscript?.({ kind: "note", round, text });
    for (const c of commands) record(c, "not-run", `the sandbox is unavailable (${why})`);
    return { result: { kind: "ok", skipped: `the sandbox cannot run on the app's host (${why})` }, setupDone };
  }
  const { execute, setUp } = commandRunners(input, progress);
  /** What a command's report means for the run: recorded, and compared with the base when it failed. */
  const judge = async (spec: CheckCommandSpec, report: CheckReport): Promise<Judged> => {
    transcribe(input, spec.kind, report);
    const ran = ranInsteadOf(report, input.record?.values());
    if (report.ok) {
      record(spec, "passed", undefined, ran);
      return report;
    }
    // A runner that is not there: the stand-ins of the checks that have one run; the others could not run.
    const goesOn = goesOnNote(spec, report, commands, input.record?.values());
    if (goesOn !== null) {
      record(spec, "could-not-run", goesOn);
      return { ...report, goesOn: true };
    }
    // A program the command names is not installed here: the sandbox's lack, the same on the base whatever the
    // change, so the base's run of it is not waited for (checks/missing-tool).
    if (report.missingTool) {
      record(spec, "tool-missing", `\`${report.missingTool}\` is not installed here`, ran);
      return report;
    }
    // A failure is compared with the same command's run on the base (started with the run, so mostly done by now).
    const base = deps.baseline ? await deps.baseline.lookup(spec) : null;
    const verdict = compareWithBaseline(report, base, deps.baseline?.roots ?? []);
    if (report.notRun) {
      record(spec, "could-not-run", report.notRun, { notRun: true });
      return report;
    }
    if (verdict.kind === "new") {
      record(spec, statusOf(report), noteOf(report), ran);
      return report;
    }
    if (verdict.kind === "partly") {
      record(spec, statusOf(report), noteOf(report), ran);
      return { ...report, preExistingTests: verdict.preExisting };
    }
    const onBase = verdict.summary || noteOf(report);
    deps.onTranscript?.({
      kind: "note",
      round,
      text: `\`${report.command}\` fails on the base too (${onBase}): not caused by this change, not sent to the model`,
    });
    // A setup step or a tool that cannot run keeps its status (the run stops on it below); a check that judged
    // the code the same way on the base is pre-existing, and the run goes on past it.
    const stops = spec.kind === "setup" || report.environmentError;
    record(spec, stops ? statusOf(report) : "pre-existing", stops ? noteOf(report) : undefined, {
      ...ran,
      onBase,
      ...(verdict.tests.length ? { testsRan: true } : {}),
    });
    return { ...report, onBase, ...(stops ? {} : { preExisting: true as const }) };
  };
  // The base's run starts no command of its own while these run (see startBaseline): they are what the run waits for.
  const release = wantsCommands ? deps.baseline?.hold?.() : undefined;
  try {
    return await runCommands(commands, { execute, setUp, judge }, input.setupDone);
  } finally {
    release?.();
  }
}

/**
 * How the round runs a command (`execute`), and a setup command (`setUp`): the report it got when it ran early,
 * while the model wrote (awaited if it still runs), when nothing the run changed reaches what it read; else it runs
 * now. Either way it is judged as a command run here.
 */
function commandRunners(
  input: RunChecksInput,
  progress: (stage: CoderStage, detail?: string) => void,
): Pick<Steps, "execute" | "setUp"> {
  const { deps, options, files } = input;
  const shown = (spec: CheckCommandSpec) =>
    progress(
      spec.kind === "setup" ? "test" : spec.kind,
      spec.kind === "setup" ? `setup: ${spec.command}` : spec.command,
    );
  const run = (spec: CheckCommandSpec, signal?: AbortSignal): Promise<CheckReport> =>
    deps.runCheck({
      kind: spec.kind,
      command: spec.command,
      files: spec.asWritten ? [] : files,
      timeoutMs: options.commandTimeoutMs,
      ...(spec.cwd ? { cwd: spec.cwd } : {}),
      ...(spec.asWritten ? { ciShell: true } : {}),
      ...(spec.fallback ? { fallback: spec.fallback } : {}),
      ...(spec.tool ? { tool: spec.tool } : {}),
      ...(signal ? { signal } : {}),
    });
  const execute = (spec: CheckCommandSpec, signal?: AbortSignal): Promise<CheckReport> => {
    shown(spec);
    return run(spec, signal);
  };
  const setUp = async (spec: CheckCommandSpec): Promise<CheckReport> => {
    const early = deps.earlySetup;
    if (!early) return execute(spec);
    shown(spec);
    const report = await early.take(spec, input.changed ?? files.map((path) => ({ path })));
    if (!report) return run(spec);
    // What the command created is for the file lists from now on, as after a command run here.
    deps.workspace.invalidate?.();
    return report;
  };
  return { execute, setUp };
}

/** A command's report as the run takes it: a failure the base has too, or one that leaves the run going, is marked. */
type Judged = CheckReport & { preExisting?: true; goesOn?: true };

/** Running one command, and judging its report (see runChecks). */
interface Steps {
  execute(spec: CheckCommandSpec, signal?: AbortSignal): Promise<CheckReport>;
  /** A setup command's report: taken from its early run when that holds, else run now. */
  setUp(spec: CheckCommandSpec): Promise<CheckReport>;
  judge(spec: CheckCommandSpec, report: CheckReport): Promise<Judged>;
}

/**
 * Setup (once), then each lint and test command, stopping at the first failure the change is to fix.
 *
 * A failed lint or test command is compared with the base's run of it, which may still be running (the run then
 * waits for it: itoa's clippy, 2.2 s). Meanwhile the next command runs: if the failure is the base's too the run goes
 * on with that command's result, which it would have waited for next; if it is the change's, that command is stopped
 * and its result dropped, as if it had never started (it is "not run: an earlier check failed"). The change's own
 * commands still run one at a time.
 */
async function runCommands(
  commands: readonly CheckCommandSpec[],
  steps: Steps,
  alreadySetUp: boolean,
): Promise<{ result: ChecksResult; setupDone: boolean }> {
  const wantsCommands = commands.some((c) => c.kind !== "setup");
  let setupDone = alreadySetUp;
  if (wantsCommands && !setupDone) {
    setupDone = true;
    for (const spec of commands.filter((c) => c.kind === "setup")) {
      const report = await steps.judge(spec, await steps.setUp(spec));
      if (!report.ok && !report.goesOn) return { result: { kind: "setup-failed", report }, setupDone };
    }
  }
  const checks = commands.filter((c) => c.kind !== "setup");
  let ahead: { spec: CheckCommandSpec; report: Promise<CheckReport>; stop: AbortController } | null = null;
  for (const [i, spec] of checks.entries()) {
    const executed = ahead?.spec === spec ? await ahead.report : await steps.execute(spec);
    ahead = null;
    const judging = steps.judge(spec, executed);
    const next = checks[i + 1];
    if (!executed.ok && next && !(await settlesAtOnce(judging))) {
      const stop = new AbortController();
      ahead = { spec: next, report: steps.execute(next, stop.signal), stop };
    }
    const report = await judging.catch(async (error: unknown) => {
      await stopAhead(ahead);
      throw error;
    });
    if (report.ok || report.preExisting || report.goesOn) continue;
    await stopAhead(ahead);
    // A tool that cannot run is not something an edit fixes: stop instead of looping (docs/behaviour.md#aider-bugs-we-avoid (#16)).
    return { result: { kind: report.environmentError ? "setup-failed" : "failed", report }, setupDone };
  }
  return { result: { kind: "ok" }, setupDone };
}

/** The command started ahead, no longer wanted: stopped, and its end awaited (nothing of it runs on). */
async function stopAhead(ahead: { report: Promise<CheckReport>; stop: AbortController } | null): Promise<void> {
  if (!ahead) return;
  ahead.stop.abort();
  await ahead.report.catch(() => undefined);
}

/** Whether a judgment is ready without waiting for anything outside (a base result already known, or none needed). */
function settlesAtOnce(judging: Promise<unknown>): Promise<boolean> {
  return Promise.race([
    judging.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((resolve) => setImmediate(() => resolve(false))),
  ]);
}

/** The built-in syntax check of each edited file: the first file the run broke, or null. */
async function syntaxFailure(input: RunChecksInput): Promise<CheckReport | null> {
  const snapshot = await input.deps.workspace.read(input.files);
  for (const path of input.files) {
    const content = snapshot.files.get(path);
    if (content === undefined) continue;
    const before = input.original?.get(path);
    const report = await input.deps.syntaxCheck(path, content, typeof before === "string" ? { before } : {});
    if (report && !report.ok) {
      transcribe(input, "syntax", report);
      return report;
    }
  }
  return null;
}

/** A check's report into the run's transcript. */
function transcribe(input: RunChecksInput, check: "syntax" | "lint" | "test" | "setup", report: CheckReport): void {
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

/** A command that did not pass: its own failure, a tool that is not installed (126/127), or one that could not run. */
function statusOf(report: CheckReport): CheckRunStatus {
  if (!report.environmentError) return "failed";
  return report.exitCode === 127 ||
    report.exitCode === 126 ||
    /not installed|not found|ENOENT/i.test(report.output.slice(0, 400))
    ? "tool-missing"
    : "could-not-run";
}

function noteOf(report: CheckReport): string {
  if (report.timedOut) return "timed out";
  return report.exitCode === null || report.exitCode === undefined ? "did not finish" : `exit ${report.exitCode}`;
}
