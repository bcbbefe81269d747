import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { chmod, mkdir, open, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { baselineOf, isBaselineResult, type BaselineResult } from "../../checks/compare-baseline.js";
import { runCheckCommand } from "../../checks/run-check-command.js";
import { checkKey, setupMayFail } from "../../coder/check-commands.js";
import type { CheckCommandSpec } from "../../coder/types.js";
import type { Exec } from "../../exec/types.js";

/** What a baseline run needs: git for the base's commit and tree, the check exec, and its cache folder. */
export interface BaselineDeps {
  /**
   * The commit the change starts from (an issue: the checkout's HEAD; a pull request: its merge-base with the default
   * branch). `signal` is the base run's: a stopped run gives up between fetches.
   */
  baseSha(signal: AbortSignal): Promise<string>;
  /**
   * A checkout of `sha` at `dir` (made beside the run's checkout, removed with the job); `signal` is the base run's:
   * a stop kills the git command under way.
   */
  checkoutBase(sha: string, dir: string, signal: AbortSignal): Promise<void>;
  /**
   * The exec of the base's commands, made when its checkout exists (container mode: a container of its own that
   * mounts only `dir`, of lower CPU shares); closed when the base's run ends. Every command through it is sent as
   * background work (see below).
   */
  checkExecFor(dir: string): Exec;
  /** `<cache>/baseline/<owner>/<repo>`: one JSON file per base commit, by command. */
  cacheDir: string;
  /** The job's: a cancelled job stops its base run too, at once. */
  signal: AbortSignal;
  /** How long the command under way at `stop()` may go on to finish (default {@link BASE_FINISH_GRACE_MS}). */
  finishWithinMs?: number;
  onError(error: unknown): void;
}

export interface BaselineRun {
  /** The command's result on the base; null when it is not run there (see {@link comparable}) or the run failed. */
  lookup(spec: CheckCommandSpec): Promise<BaselineResult | null>;
  /** The checkout folders (the change's and the base's), removed from outputs before they are compared. */
  roots: readonly string[];
  /**
   * The change's own checks are running (until the returned release is called): the base starts no command
   * meanwhile, unless the run waits for one of its results. See {@link startBaseline}.
   */
  hold(): () => void;
  /**
   * End the base's run: nothing further is started; the command under way, raised to normal priority, may finish
   * within `finishWithinMs` (its result is kept, so the next run on this base does not run it again) and is killed
   * (with its container, in container mode) after that. A stop before any command runs, or a cancelled job, stops it
   * at once. Only finished results are kept. The job calls it when its phases are over.
   */
  stop(): void;
  /**
   * Settles when the base's run is over (done, stopped or given up), its cache written and its exec released: the
   * job awaits it before its checkout (which holds the base's) is removed, so nothing of it outlives the job.
   */
  done: Promise<void>;
}

/**
 * How long a base command still running when the run's phases end may go on. The base runs as background work, so a
 * light check is often still running when the run ends; killed, it never finishes on a base whose runs always end
 * first (each run started it again). Raised to normal priority it usually needs a few seconds; the job (its slot and
 * its checkout) waits that long at most, well within the app's shutdown grace (AIDER_BOT_SHUTDOWN_MS, 60 s).
 */
export const BASE_FINISH_GRACE_MS = 20_000;

/**
 * The repository's checks on the base, started with the run (while the model writes its first answer, so it costs
 * no wall time): setup, then each lint and test command, in a checkout of the base beside the run's, through the same
 * sandbox, as background work: at a lower CPU and I/O priority than the run's own checks, which on a busy machine
 * run at the same time and are what the run waits for; while they run, the base starts no command (`hold`). While the
 * run waits for one of its results (a check of the change failed), the base runs at normal priority, its command under
 * way raised back to it. Results are kept by base commit and command, so later
 * runs on the same base run nothing. A setup step that fails ends the base's run (what follows it is not run there). Never throws: a base that cannot be made or run
 * leaves every lookup null, and the change's failures are reflected as they always were.
 */
export function startBaseline(
  checkout: string,
  specs: readonly CheckCommandSpec[],
  timeoutMs: number,
  deps: BaselineDeps,
): BaselineRun {
  const baseDir = path.join(path.dirname(checkout), "base");
  const wanted = specs.filter(comparable);
  const { results, settle } = pendingResults(wanted);
  const roots = [checkout, baseDir];
  const stopper = new AbortController();
  const signal = AbortSignal.any([deps.signal, stopper.signal]);
  // The results the run waits for, still to come. While there is one, the base's commands run at normal priority
  // (the one under way is raised back to it, where the host allows it: `raise`) and are not held back by the change's
  // checks; once none is left, the base is background work again.
  const awaited = new Set<string>();
  let raise = new AbortController();
  // Set by stop(): no command starts after it; the one under way (`running`) may finish within the grace.
  let ending = false;
  let running = false;
  let grace: ReturnType<typeof setTimeout> | undefined;
  const gate = createGate(() => awaited.size > 0 || signal.aborted || ending);
  signal.addEventListener("abort", gate.wake, { once: true });
  const finish = (key: string, r: BaselineResult | null) => {
    settle.get(key)?.(r);
    settle.delete(key);
    awaited.delete(key);
  };
  let exec: Exec | null = null;
  const done = (async () => {
    if (!wanted.length) return;
    const sha = await deps.baseSha(signal);
    // The cache file is named by it: a commit id and nothing else.
    if (!/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(sha))
      throw new Error(`the base is not a commit id: ${JSON.stringify(sha)}`);
    const file = path.join(deps.cacheDir, `${sha}.json`);
    const cached = await readCache(file);
    for (const spec of wanted) if (cached[cacheKey(spec)]) finish(cacheKey(spec), cached[cacheKey(spec)]!);
    if (!settle.size || signal.aborted) return;
    await deps.checkoutBase(sha, baseDir, signal);
    const fresh: Record<string, BaselineResult> = {};
    exec = deps.checkExecFor(baseDir);
    const background = asBackground(
      exec,
      () => awaited.size > 0,
      (c) => (raise = c),
    );
    const setUpAgain = needsSetUp(wanted, settle);
    for (const spec of wanted) {
      const key = cacheKey(spec);
      if (!settle.has(key) && !(setUpAgain && spec.kind === "setup")) continue;
      await gate.turn();
      if (signal.aborted || ending) break;
      running = true;
      const report = await runOnBase(background, spec, baseDir, timeoutMs, signal);
      running = false;
      // A command cut short by the stop says nothing about the base.
      if (signal.aborted) break;
      const result = baselineOf(report, roots);
      fresh[key] = result;
      finish(key, result);
      // What follows a failed setup step is not run on the base (nor on the change: its run stops there too), unless
      // it only set up a Python project runner that a check's stand-in replaces (the change's run goes on too).
      if (spec.kind === "setup" && !report.ok && !setupMayFail(spec, report, specs)) break;
    }
    if (Object.keys(fresh).length) await writeCache(file, { ...cached, ...fresh });
  })()
    // What fails once the run is stopped (a fetch or checkout cut short, its folder going) is the stop, not a fault.
    .catch((error: unknown) => {
      if (!signal.aborted) deps.onError(error);
    })
    .finally(async () => {
      clearTimeout(grace);
      for (const key of [...settle.keys()]) finish(key, null);
      await exec?.close?.().catch((error: unknown) => deps.onError(error));
    });
  return {
    lookup: (spec) => {
      const key = cacheKey(spec);
      if (settle.has(key)) {
        awaited.add(key);
        raise.abort();
        gate.wake();
      }
      return results.get(cacheKey(spec)) ?? Promise.resolve(null);
    },
    roots,
    hold: gate.hold,
    stop: () => {
      if (ending) return;
      ending = true;
      gate.wake();
      if (!running) return stopper.abort();
      // The run has nothing else to do: the command under way gets the machine back, and a bounded time.
      raise.abort();
      grace = setTimeout(() => stopper.abort(), deps.finishWithinMs ?? BASE_FINISH_GRACE_MS);
    },
    done,
  };
}

/**
 * Whether the base's new checkout must run its setup steps though their results were kept: an earlier run on this
 * base ended before a lint or test command that is still to run (else it runs without its node_modules, and its
 * failure is kept as the base's).
 */
function needsSetUp(wanted: readonly CheckCommandSpec[], pending: ReadonlyMap<string, unknown>): boolean {
  return wanted.some((s) => s.kind !== "setup" && pending.has(cacheKey(s)));
}

/** A promise per command's result, and how to settle it (one per command, however often it is planned). */
function pendingResults(wanted: readonly CheckCommandSpec[]): {
  results: Map<string, Promise<BaselineResult | null>>;
  settle: Map<string, (r: BaselineResult | null) => void>;
} {
  const results = new Map<string, Promise<BaselineResult | null>>();
  const settle = new Map<string, (r: BaselineResult | null) => void>();
  for (const spec of wanted) {
    const key = cacheKey(spec);
    if (!results.has(key)) results.set(key, new Promise((resolve) => settle.set(key, resolve)));
  }
  return { results, settle };
}

/** One of the run's check commands, run in the base's checkout as the change's run runs it. */
function runOnBase(exec: Exec, spec: CheckCommandSpec, baseDir: string, timeoutMs: number, signal: AbortSignal) {
  return runCheckCommand(exec, {
    kind: spec.kind,
    command: spec.command,
    cwd: spec.cwd ? path.join(baseDir, spec.cwd) : baseDir,
    timeoutMs,
    files: [],
    ...(spec.asWritten ? { ciShell: true } : {}),
    // The same stand-in as the change's run, so the two compare like for like.
    ...(spec.fallback ? { fallback: spec.fallback } : {}),
    ...(spec.tool ? { tool: spec.tool } : {}),
    signal,
  });
}

/**
 * The base's turn. The change's checks come first: while they run (`hold` until released), the base starts no command
 * (the one under way goes on, as background work). Both sides' commands at once shared the cores, and the change's are
 * what the run waits for; the base's turn is while the model writes, and while `open()` says so (the run waits for one
 * of its results, or the run is stopped); `wake` when that changes.
 */
function createGate(open: () => boolean): { hold(): () => void; turn(): Promise<void>; wake(): void } {
  let holds = 0;
  const waiting = new Set<() => void>();
  const wake = () => {
    for (const resume of waiting) resume();
    waiting.clear();
  };
  return {
    hold: () => {
      holds++;
      let held = true;
      return () => {
        if (!held) return;
        held = false;
        holds--;
        wake();
      };
    },
    turn: async () => {
      while (holds > 0 && !open()) await new Promise<void>((resume) => waiting.add(resume));
    },
    wake,
  };
}

/**
 * The base's exec: every command as background work with a `raise` of its own (`raising` keeps it, to raise the
 * command under way when the run starts waiting), or at normal priority while the run waits (`waited()`) — said in so
 * many words: the base's exec is made for background work and gives a request that names no priority its own.
 */
function asBackground(exec: Exec, waited: () => boolean, raising: (raise: AbortController) => void): Exec {
  return {
    ...(exec.toolShelf ? { toolShelf: () => exec.toolShelf!() } : {}),
    run: (req) => {
      if (waited()) return exec.run({ ...req, priority: "normal" });
      const raise = new AbortController();
      raising(raise);
      // A request that brings an `urgent` of its own (a tools-shelf install the change's step may join) is raised by
      // either.
      const urgent = req.urgent ? AbortSignal.any([raise.signal, req.urgent]) : raise.signal;
      return exec.run({ ...req, priority: "background", urgent });
    },
  };
}

/**
 * Whether a command's run on the base can be compared with the change's: setup and test commands, and lint commands
 * run as written. A configured lint command gets the edited files appended, which the base has no counterpart for.
 */
export function comparable(spec: CheckCommandSpec): boolean {
  return spec.kind !== "lint" || (!!spec.asWritten && !spec.command.includes("{files}"));
}

/** The key of a command in the cache: its kind, folder and command line (hashed: file-name safe, fixed size). */
function cacheKey(spec: CheckCommandSpec): string {
  // With its stand-in: a result kept from before the stand-in existed is not its result.
  const standIn = spec.fallback?.command ? `\u0000${spec.fallback.command}` : "";
  return createHash("sha256")
    .update(`${checkKey(spec)}${standIn}`)
    .digest("hex")
    .slice(0, 32);
}

/** The cache file's format; a file of another version (an older one's raw output) is removed, never read. */
const CACHE_VERSION = 2;

/**
 * The cached results of a base commit, by command key. Read only from a regular file that only its owner can read or
 * write (not a link, not group- or world-accessible: another user's file or one swapped in is not trusted), of this
 * version; results not of the expected shape are ignored one by one (that command simply runs again). A file that is
 * not this version's, or not JSON, is removed: an older version's file held the commands' raw output.
 */
async function readCache(file: string): Promise<Record<string, BaselineResult>> {
  let text: string;
  try {
    const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const info = await handle.stat();
      if (!info.isFile() || (info.mode & 0o077) !== 0) return {};
      text = await handle.readFile("utf8");
    } finally {
      await handle.close();
    }
  } catch {
    return {};
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  const data = parsed as { version?: unknown; results?: unknown } | null;
  if (
    !data ||
    typeof data !== "object" ||
    data.version !== CACHE_VERSION ||
    !data.results ||
    typeof data.results !== "object"
  ) {
    await rm(file, { force: true }).catch(() => undefined);
    return {};
  }
  return Object.fromEntries(
    Object.entries(data.results).filter(([k, v]) => /^[0-9a-f]{32}$/.test(k) && isBaselineResult(v)),
  ) as Record<string, BaselineResult>;
}

/**
 * Written to a temporary name and renamed: a concurrent reader sees the old file or the new, never half of one. The
 * folder is the owner's only (0700), the file too (0600).
 */
async function writeCache(file: string, results: Record<string, BaselineResult>): Promise<void> {
  const dir = path.dirname(file);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const tmp = `${file}.${process.pid}.tmp`;
  // Made new (`wx`, with its mode): a file left by a killed run of this process id is removed first, never reused.
  await rm(tmp, { force: true });
  await writeFile(tmp, JSON.stringify({ version: CACHE_VERSION, results }), { mode: 0o600, flag: "wx" });
  await rename(tmp, file);
}
