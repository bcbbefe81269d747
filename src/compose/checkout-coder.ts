import path from "node:path";
import { runCoder } from "../coder/run-coder.js";
import type { CoderOptions } from "../coder/types.js";
import type { Exec } from "../exec/types.js";
import type { LlmClient } from "../llm/types.js";
import type { BaselineRun } from "../run/prepare/baseline-run.js";
import { startEarlySetup, type EarlySetup, type EarlySetupDeps } from "../run/prepare/early-setup.js";
import { checkCommandsOf } from "../coder/check-commands.js";
import type { RunCoderPort } from "../run/run-ports.js";
import type { Git } from "../workspace/create-git.js";
import { checkRequestShape } from "../checks/run-check-command.js";
import { createCoderDeps } from "./create-coder-deps.js";

/** What the coder of one run is built from: the driver's execs, git, model client and caches. */
export interface CheckoutCoderInput {
  owner: string;
  repo: string;
  llm: LlmClient;
  exec: Exec;
  /** Exec for the repository's own commands (the App's sandbox, the runner's toolchain environment). */
  checkExec: Exec;
  /** The run's git (its commit identity), for the coder's commits and diffs. */
  git: Git;
  /** Repo-map caches go under `<cacheRoot>/repomap/<owner>/<repo>`. */
  cacheRoot: string;
  gitContentIds: boolean;
  mapThreads?: number;
  /** The folder the coder works in for a checkout the run made (the Action maps it to the workflow's). */
  coderRoot?(checkout: string): string;
  /** Awaited as the coder starts (the App's container mode picks its image from the check plan). */
  beforeCoder?(checkout: string): void | Promise<void>;
  /** The base's run of the same checks, started once per run as its first coder step starts (null: none). */
  baseline(checkout: string, options: CoderOptions, signal: AbortSignal): Promise<BaselineRun | null>;
  /**
   * Start the change's setup commands while the model writes (see startEarlySetup), telling these what starts and
   * what does not; absent: setup runs at the check stage only.
   */
  earlySetup?: Pick<EarlySetupDeps, "onStart" | "onSkip" | "onError">;
}

/**
 * The run's coder (`deps.coder` in run-job): Aider's edit loop (`runCoder`) on the run's checkout, wired to the real
 * edit engine, checks, repo map, workspace and git. An architect run's two steps call it twice; they share one base
 * run.
 */
export function createCheckoutCoder(input: CheckoutCoderInput): RunCoderPort {
  let baseline: Promise<BaselineRun | null> | null = null;
  const roots: string[] = [];
  return async function codeOnCheckout(checkout, options, hooks) {
    const { pending } = hooks;
    let ready: Promise<unknown> = Promise.resolve();
    if (pending) {
      // The files are still being written. The container's image may come from them (an issue's devcontainer): it
      // is chosen once they are, while the first round, which needs neither, goes on; commands wait for it.
      ready = pending.written.then(() => input.beforeCoder?.(checkout));
      ready.catch(() => undefined); // reaches the run through the steps that wait for it
    } else if (input.beforeCoder) await input.beforeCoder(checkout);
    // Started beside the first round, not before it: nothing of the base is needed until a check has failed. Kept
    // by the job: stopped and awaited before the checkout (which holds the base's) is removed.
    baseline ??= ready
      .then(() => input.baseline(checkout, options, hooks.signal))
      .then((base) => {
        if (base) {
          hooks.keep?.(base);
          roots.push(...base.roots);
        }
        return base;
      });
    const base = baseline;
    base.catch(() => undefined); // reaches the run through the lookup and the commit that wait for it
    const root = input.coderRoot ? input.coderRoot(checkout) : checkout;
    const deps = createCoderDeps({
      root,
      exec: input.exec,
      checkExec: input.checkExec,
      git: input.git,
      llm: input.llm,
      commitModel: options.weakModel ?? options.model,
      protectedPaths: options.protectedPaths,
      cacheDir: path.join(input.cacheRoot, "repomap", input.owner, input.repo),
      gitContentIds: input.gitContentIds,
      ...(input.mapThreads !== undefined ? { mapThreads: input.mapThreads } : {}),
      onProgress: hooks.onProgress,
      ...(hooks.onTranscript ? { onTranscript: hooks.onTranscript } : {}),
      signal: hooks.signal,
      // The base's results when it runs (none: every lookup answers null, as without a base). Its roots are
      // known once it has started, which a lookup waits for.
      baseline: { lookup: async (spec) => (await base)?.lookup(spec) ?? null, roots, hold: () => holdOnce(base) },
      ...(pending ? { pending } : {}),
      ...(hooks.publishAhead ? { publishAhead: hooks.publishAhead } : {}),
      commandsReady: ready,
      // The base reads the checkout's commit as it starts: the run's own commit must not come first.
      commitReady: base,
    });
    if (input.earlySetup && !options.askOnly) prestartFirstCheck(input.checkExec, root, options, ready);
    // The step that edits (an architect's plan edits nothing, and its editor's map must not see what setup creates).
    const early =
      input.earlySetup && !options.askOnly ? earlySetupOf(input.earlySetup, deps, options, ready, base, hooks) : null;
    try {
      return await runCoder(options, early ? { ...deps, earlySetup: early } : deps);
    } finally {
      // What the run did not reach (no edit, an error) is not left running until the job ends.
      early?.stop();
    }
  };
}

/**
 * The sandbox of the run's first check command, set up ahead while the model works (see exec/sandbox-ahead): once the
 * check exec knows the repository (`ready`: its package cache is part of the sandbox), for that command's folder.
 * Only for a run that edits and has a check command; a sandbox the run does not use ends with the job.
 */
function prestartFirstCheck(checkExec: Exec, root: string, options: CoderOptions, ready: Promise<unknown>): void {
  const first = checkCommandsOf(options)[0];
  if (!first || !checkExec.prestart) return;
  const cwd = first.cwd ? path.resolve(root, first.cwd) : root;
  // Outside the checkout is refused when the command runs; nothing is set up for it.
  if (cwd !== root && !cwd.startsWith(`${root}${path.sep}`)) return;
  void ready.then(
    () => checkExec.prestart!(checkRequestShape(cwd)),
    () => undefined,
  );
}

/**
 * The change's setup commands, started once its files are written, its check exec is ready and the run's first file
 * list is read (so nothing setup creates reaches this round's map), through the check stage's own runner.
 */
function earlySetupOf(
  tell: NonNullable<CheckoutCoderInput["earlySetup"]>,
  deps: ReturnType<typeof createCoderDeps>,
  options: CoderOptions,
  ready: Promise<unknown>,
  base: Promise<BaselineRun | null>,
  hooks: { signal: AbortSignal; keep?: (work: EarlySetup) => void },
): EarlySetup | null {
  const specs = checkCommandsOf(options);
  // Setup runs only for a run with lint or test commands to run after it.
  if (!specs.some((s) => s.kind === "setup") || !specs.some((s) => s.kind !== "setup")) return null;
  const early = startEarlySetup(specs, {
    ready: ready.then(() => deps.workspace.listFiles()),
    available: async () => !(await deps.sandboxMode?.())?.startsWith("unavailable: "),
    read: async (rel) => {
      const got = await deps.workspace.read([rel]);
      return got.files.get(rel) ?? (got.problems?.has(rel) ? false : null);
    },
    run: (spec, signal) =>
      deps.runCheck({
        kind: "setup",
        command: spec.command,
        files: [],
        timeoutMs: options.commandTimeoutMs,
        ...(spec.cwd ? { cwd: spec.cwd } : {}),
        ...(spec.asWritten ? { ciShell: true } : {}),
        ...(spec.fallback ? { fallback: spec.fallback } : {}),
        ...(spec.tool ? { tool: spec.tool } : {}),
        signal,
        keepsListing: true,
      }),
    hold: () => holdOnce(base),
    signal: hooks.signal,
    ...tell,
  });
  hooks.keep?.(early);
  return early;
}

/**
 * Hold the base's run while the change's checks run (see BaselineRun.hold), whether or not it has started yet: held
 * as soon as it starts, unless released first.
 */
function holdOnce(base: Promise<BaselineRun | null>): () => void {
  let released = false;
  let release: (() => void) | undefined;
  void base.then(
    (b) => {
      if (!released) release = b?.hold();
    },
    () => undefined,
  );
  return () => {
    released = true;
    release?.();
  };
}
