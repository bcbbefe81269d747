import {
  classifySetup,
  touchesInputs,
  type FileChange,
  type ReadFile,
  type SetupInputs,
} from "../../checks/setup-inputs.js";
import type { CheckReport } from "../../checks/types.js";
import { checkKey } from "../../coder/check-commands.js";
import type { EarlySetupPort } from "../../coder/coder-deps.js";
import type { CheckCommandSpec } from "../../coder/types.js";
import type { CheckoutWork } from "../checkout-work.js";

/** What the change's early setup needs: when it may start, the checkout's manifests, and the check stage's runner. */
export interface EarlySetupDeps {
  /** Settles when a command may start: the checkout's files written, its check exec ready, the run's first file list read. */
  ready: Promise<unknown>;
  /** Whether the sandbox can run here (the check stage's own test): when it cannot, nothing starts early. */
  available(): Promise<boolean>;
  /** A file of the checkout, for the classification (see classifySetup). */
  read: ReadFile;
  /** The check stage's own way of running a setup command (same exec, folder, shell, stand-ins and tools shelf). */
  run(spec: CheckCommandSpec, signal: AbortSignal): Promise<CheckReport>;
  /** Holds the base's run while the early commands run (see BaselineRun.hold): they are what the run waits for. */
  hold?(): () => void;
  /** The job's: a cancelled job kills the command under way. */
  signal: AbortSignal;
  /** Told which command starts early, and why a command does not (the job's log). */
  onStart?(spec: CheckCommandSpec): void;
  onSkip?(spec: CheckCommandSpec, why: string): void;
  onError(error: unknown): void;
}

/** The early setup of one run: the coder's port, and the checkout's work the job stops and awaits. */
export type EarlySetup = EarlySetupPort & CheckoutWork;

/**
 * The change's setup commands, started as soon as its checkout is on disk and the check exec is ready — while the
 * repository is mapped, the model writes and its answer is applied — so that when the run reaches setup, the result
 * is there (or nearer). Only what is safe starts: the longest run of the plan's setup commands, from its first, that
 * read manifests only (see classifySetup); the rest run at the check stage, as before. They run one at a time in
 * the plan's order and stop at the first failure, as at the check stage.
 *
 * An edit that reaches an input of a command (package.json, a lockfile, a requirement file, go.mod…; created or
 * deleted too) makes that command's result, and every later one's, stale: the command under way is killed and its
 * end awaited before the edit is written (`beforeWrite`), and the check stage runs those commands again (`take`
 * answers null). The result used is what the check stage's own run would have produced.
 */
export function startEarlySetup(specs: readonly CheckCommandSpec[], deps: EarlySetupDeps): EarlySetup {
  const setup = specs.filter((s) => s.kind === "setup");
  const stopper = new AbortController();
  const signal = AbortSignal.any([deps.signal, stopper.signal]);
  /** The commands that may run early, in order, with what each reads. */
  const early: { spec: CheckCommandSpec; inputs: SetupInputs }[] = [];
  /** Each setup command's early report, null once it is known not to come (not early, cut, after a failure). */
  const results = setup.map(() => deferred<CheckReport | null>());
  const taken = new Set<number>();
  /** The run's changes so far: a command whose inputs they reach does not start, or is killed. */
  const changes: FileChange[] = [];
  /** From this index on, no early result is used. */
  let cut = setup.length;
  let current: { index: number; stop: AbortController; end: Promise<unknown> } | null = null;

  const reaches = (index: number, list: readonly FileChange[]): boolean => {
    const entry = early[index];
    return !!entry && list.some((c) => touchesInputs(entry.inputs, c, entry.spec.cwd));
  };
  /** Cut at the first command the changes reach; the command under way at or past it is killed and awaited. */
  const discard = async (list: readonly FileChange[]): Promise<void> => {
    changes.push(...list);
    for (let i = 0; i < early.length && i < cut; i++) if (reaches(i, list)) cut = i;
    const running = current;
    if (running && running.index >= cut) {
      running.stop.abort();
      await running.end;
    }
  };

  const done = (async () => {
    if (!setup.length) return;
    await deps.ready;
    if (signal.aborted || !(await deps.available())) return;
    let release: (() => void) | undefined;
    try {
      for (const [index, spec] of setup.entries()) {
        if (signal.aborted) break;
        const verdict = await classifySetup(spec, deps.read);
        if (!verdict.early) {
          deps.onSkip?.(spec, verdict.why);
          break;
        }
        early.push({ spec, inputs: verdict.inputs });
        // An edit written while this command was classified (or before) makes its early run pointless.
        if (reaches(index, changes)) cut = Math.min(cut, index);
        if (index >= cut || signal.aborted) break;
        release ??= deps.hold?.();
        deps.onStart?.(spec);
        const stop = new AbortController();
        const report = deps.run(spec, AbortSignal.any([signal, stop.signal]));
        current = { index, stop, end: report.catch(() => undefined) };
        const got = await report.finally(() => (current = null));
        results[index]!.resolve(got);
        if (!got.ok) break;
      }
    } finally {
      release?.();
    }
  })()
    .catch((error: unknown) => {
      if (!signal.aborted) deps.onError(error);
    })
    .finally(() => {
      for (const r of results) r.resolve(null);
    });

  return {
    beforeWrite: (list) => discard(list),
    take: async (spec, changed) => {
      const index = setup.findIndex((s) => checkKey(s) === checkKey(spec));
      if (index < 0 || taken.has(index)) return null;
      taken.add(index);
      if (index >= cut) return null;
      await discard(changed);
      const report = await results[index]!.promise;
      return index < cut ? report : null;
    },
    stop: () => stopper.abort(),
    done,
  };
}

function deferred<T>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
