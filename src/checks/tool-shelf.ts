import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { cp, mkdir, mkdtemp, open, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ImpliedTool } from "./discover/types.js";
import { shellQuote } from "./shell-quote.js";
import type { Exec, ExecResult, ToolShelfPlace } from "../exec/types.js";

/** What became of an implied tool install served from the repository's tools shelf. */
export type ToolOutcome =
  /** Copied into the job's home from the shelf (installed by an earlier job). */
  | { kind: "restored"; installedAt: Date }
  /** Installed now, put on the shelf, and copied into the job's home. */
  | { kind: "installed" }
  /** The sandbox has the tool on its PATH already: nothing installed. */
  | { kind: "present" }
  /** The install ran and failed; `network`: for want of the package index (remembered, see `retryAfterMs`). */
  | { kind: "failed"; result: ExecResult; network: boolean }
  /** Not tried: an install failed for want of the network at `failedAt`; tried again after `retryAt`. */
  | { kind: "not-retried"; failedAt: Date; retryAt: Date; error: string };

/**
 * One attempt per job and tool: the change's implied step and the base's (which share the job's home in bubblewrap)
 * get the same outcome, and the install runs once. Keyed by the job's home, which is the job's own folder. `raise`
 * is the install's `urgent` signal: the base's run starts it as background work, and when the change's step joins it
 * the run waits for it, so it goes on at normal priority (niced, one install took 4.1 s where it takes 1 s).
 */
const attempts = new Map<string, { outcome: Promise<ToolOutcome>; raise: AbortController }>();

/**
 * The tool an implied setup step installs (`uv`, `poetry==1.8.3`), for this job, through the repository's tools
 * shelf (`place.dir`, a host folder under the cache dir) — so it is installed once per repository, not once per job:
 *
 * - on the shelf: its tree is **copied** into the job's `~/.local` (the layout `pip install --user` makes), where the
 *   repository's commands find it as before. The shelf itself is never mounted into a sandbox: what a command does
 *   to its copy goes with its job;
 * - else, unless an install failed for want of the network less than `retryAfterMs` ago: it is installed by a command
 *   that runs none of the repository's code and reads nothing a job wrote — in a new empty folder of the shelf (the
 *   only folder of it the sandbox sees, as its working folder), with its own `HOME`, temp, pip cache and user base
 *   there, `PATH` without the job's home or `/tmp` (where a command could plant a `python3`), Python's path variables
 *   unset — and only when it succeeded is that tree renamed onto the shelf by the app;
 * - a failure whose output says the index could not be reached is remembered on the shelf (`<key>-net<hash>.failed`,
 *   one per network setting), so the repository's jobs do not each spend a second or more on it; any other failure
 *   is not.
 *
 * Never throws: a shelf that cannot be written is an install that failed, reported as such.
 */
export function provideTool(
  exec: Exec,
  place: ToolShelfPlace,
  tool: ImpliedTool,
  now = () => new Date(),
): Promise<ToolOutcome> {
  const key = `${place.home}\u0000${tool.requirement}`;
  const joined = attempts.get(key);
  if (joined) {
    // A second step of the job waits for it now: one of the two is the change's, which the run is waiting on.
    joined.raise.abort();
    return joined.outcome;
  }
  const raise = new AbortController();
  const outcome = provide(exec, place, tool, now, raise.signal).catch((error: unknown): ToolOutcome => ({
    kind: "failed",
    network: false,
    result: {
      exitCode: 1,
      output: `ERROR: the tools shelf could not be used: ${String(error)}`,
      stdout: "",
      stderr: "",
      timedOut: false,
      durationMs: 0,
    },
  }));
  attempts.set(key, { outcome, raise });
  // A long-lived process runs many jobs: the oldest jobs' attempts go (a job asks within its own few minutes).
  if (attempts.size > 200) attempts.delete(attempts.keys().next().value!);
  return outcome;
}

async function provide(
  exec: Exec,
  place: ToolShelfPlace,
  tool: ImpliedTool,
  now: () => Date,
  urgent: AbortSignal,
): Promise<ToolOutcome> {
  const name = shelfName(tool);
  const stored = path.join(place.dir, name);
  const kept = await stat(stored).catch(() => null);
  if (kept?.isDirectory()) {
    await copyIntoHome(stored, place.home);
    return { kind: "restored", installedAt: kept.mtime };
  }
  const failedFile = path.join(place.dir, `${name}${networkSuffix(place)}.failed`);
  const failed = await readFailure(failedFile);
  if (failed && place.retryAfterMs > 0) {
    const retryAt = new Date(failed.at.getTime() + place.retryAfterMs);
    if (retryAt > now() && failed.at <= now())
      return { kind: "not-retried", failedAt: failed.at, retryAt, error: failed.error };
  }
  await mkdir(place.dir, { recursive: true, mode: 0o700 });
  const staging = await mkdtemp(path.join(place.dir, ".install-"));
  try {
    const result = await exec.run({
      command: installScript(tool),
      shell: true,
      label: `install ${tool.requirement} onto the repository's tools shelf`,
      cwd: staging,
      timeoutMs: 300_000,
      maxOutputBytes: 100_000,
      urgent,
    });
    if (result.exitCode === 0 && result.output.includes(PRESENT)) return { kind: "present" };
    const tree = path.join(staging, "user");
    if (result.exitCode === 0 && (await stat(path.join(tree, "bin", tool.name)).catch(() => null))) {
      // Another job may have put it there first: theirs stays, ours goes with the staging folder.
      await rename(tree, stored).catch(() => undefined);
      await rm(failedFile, { force: true });
      await copyIntoHome(stored, place.home);
      return { kind: "installed" };
    }
    const network = wantsNetwork(result.output);
    if (network) await writeFailure(failedFile, now(), lastError(result.output));
    return { kind: "failed", result, network };
  } finally {
    await rm(staging, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Printed when the sandbox's PATH has the tool already (no install needed). */
const PRESENT = "aider-bot: already on PATH";

/**
 * The install, run with the staging folder as its working folder. Everything it reads is the image's or the index's:
 * `PATH` loses the job's home and `/tmp` first (the repository's commands can write there), and HOME, TMPDIR, pip's
 * cache and the user base are the staging folder's own (the repository's package cache is written by its commands).
 */
export function installScript(tool: ImpliedTool): string {
  const name = shellQuote(tool.name);
  return [
    // An unset HOME must not make the pattern `/*`, which would drop every folder.
    `h="\${HOME:-/nonexistent}"; p=; IFS=:; for d in $PATH; do case "$d" in "$h"|"$h"/*|/tmp|/tmp/*|""|.|./*) ;; *) p="$p\${p:+:}$d" ;; esac; done; unset IFS`,
    `export PATH="$p"`,
    `command -v ${name} >/dev/null 2>&1 && { echo ${shellQuote(PRESENT)}; exit 0; }`,
    `mkdir -p home tmp cache`,
    `export HOME="$PWD/home" TMPDIR="$PWD/tmp" PIP_CACHE_DIR="$PWD/cache" PYTHONUSERBASE="$PWD/user" PIP_BREAK_SYSTEM_PACKAGES=1 PIP_DISABLE_PIP_VERSION_CHECK=1`,
    `unset PYTHONPATH PYTHONHOME PYTHONSTARTUP PIP_TARGET PIP_PREFIX PIP_CONFIG_FILE`,
    // One retry, not pip's five with back-off: where no index can be reached pip took ~10 s to give up.
    `python3 -m pip install --user --retries 1 --no-warn-script-location ${shellQuote(tool.requirement)}`,
  ].join("\n");
}

/** Whether pip's output says it could not reach the package index (not: the version does not exist). */
export function wantsNetwork(output: string): boolean {
  return /connection broken by|NewConnectionError|Failed to establish a new connection|ProxyError|Tunnel connection failed|Temporary failure in name resolution|Name or service not known|Network is unreachable|Could not fetch URL|ConnectTimeout|Read timed out|SSLError/.test(
    output,
  );
}

/** pip's last `ERROR:` line (else the last line), kept short. */
function lastError(output: string): string {
  const lines = output
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const line = [...lines].reverse().find((l) => /^ERROR:/.test(l)) ?? lines.at(-1) ?? "no output";
  return line.replace(/^ERROR:\s*/, "").slice(0, 120);
}

/** The network setting a remembered failure holds for, as a short file-name suffix ("" when the place names none). */
function networkSuffix(place: ToolShelfPlace): string {
  return place.network ? `-net${createHash("sha256").update(place.network).digest("hex").slice(0, 8)}` : "";
}

/** The shelf's folder name of a requirement: readable, file-name safe, distinct (a short hash of the exact text). */
function shelfName(tool: ImpliedTool): string {
  const hash = createHash("sha256").update(tool.requirement).digest("hex").slice(0, 8);
  return `${tool.requirement.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 60)}-${hash}`;
}

/** A copy, never a link: the job may change its copy as it likes, and the shelf's stays as installed. */
async function copyIntoHome(stored: string, home: string): Promise<void> {
  const local = path.join(home, ".local");
  await mkdir(local, { recursive: true });
  await cp(stored, local, {
    recursive: true,
    force: true,
    verbatimSymlinks: true,
    mode: constants.COPYFILE_FICLONE,
  });
}

/** A remembered failure: when, and pip's error. Read only from a regular file of the app's, not through a link. */
async function readFailure(file: string): Promise<{ at: Date; error: string } | null> {
  try {
    const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const info = await handle.stat();
      if (!info.isFile() || info.size > 4_096) return null;
      const data = JSON.parse(await handle.readFile("utf8")) as { at?: unknown; error?: unknown };
      const at = typeof data.at === "string" ? new Date(data.at) : null;
      if (!at || Number.isNaN(at.getTime())) return null;
      return { at, error: typeof data.error === "string" ? data.error.slice(0, 160) : "" };
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}

async function writeFailure(file: string, at: Date, error: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await rm(tmp, { force: true });
  await writeFile(tmp, JSON.stringify({ at: at.toISOString(), error }), { mode: 0o600, flag: "wx" });
  await rename(tmp, file);
}
