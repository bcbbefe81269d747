import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { NetworkMemoryPlace } from "../exec/types.js";
import type { CheckReport } from "./types.js";

/**
 * Failures for want of the network, remembered on a repository's tools shelf (a host folder the sandboxes never see),
 * so that the repository's later jobs do not each wait out the same retries: pip gives up on an unreachable index after
 * five retries with back-off, about 8 s a requirement (16 s for `pip install --upgrade pip hatch`), on the change and
 * on the base. Two things are remembered: an implied tool install (see tool-shelf.ts) and a setup command of the
 * repository's (see {@link recallSetupFailure}).
 */

/** A remembered failure: when, its gist, and (for a setup command) its exit code and output as they were. */
export interface RememberedFailure {
  at: Date;
  error: string;
  exitCode?: number;
  output?: string;
}

/** Whether pip's output says it could not reach the package index (not: the version does not exist). */
export function wantsNetwork(output: string): boolean {
  return /connection broken by|NewConnectionError|Failed to establish a new connection|ProxyError|Tunnel connection failed|Temporary failure in name resolution|Name or service not known|Network is unreachable|Could not fetch URL|ConnectTimeout|Read timed out|SSLError/.test(
    output,
  );
}

/**
 * Whether a failed command's output says a host could not be reached **in a way that does not pass by itself**: its
 * name did not resolve, or the connection was refused (by the host, or by the sandbox's egress proxy). Timeouts, resets
 * and a registry's 5xx are left out: a retry may well succeed, and a setup step not run would cost the job its
 * dependencies. Covers pip, npm/yarn/pnpm (Node's `getaddrinfo` codes), cargo and curl, go, and Ruby's gem/bundler.
 */
export function unreachableHost(output: string): boolean {
  return /Name or service not known|Temporary failure in name resolution|Failed to establish a new connection|Tunnel connection failed|getaddrinfo (?:ENOTFOUND|EAI_AGAIN)|\b(?:ECONNREFUSED|ENETUNREACH|EHOSTUNREACH)\b|Could(?: not|n't) resolve host|dial tcp: lookup \S+|: no such host|Network is unreachable|No route to host|Connection refused - connect\(2\)/.test(
    output,
  );
}

/**
 * The file a setup command's remembered failure is kept in: one per command line and network setting (a failure under
 * another policy or allow list says nothing about this one), named by a hash so no command text reaches a path.
 */
export function setupFailureFile(shelf: string, network: string, command: string): string {
  const hash = createHash("sha256").update(`${network}\u0000${command}`).digest("hex").slice(0, 16);
  return path.join(shelf, `setup-${hash}.failed`);
}

/** How much of a failed setup command's output is kept with it (its tail: where pip and npm say what went wrong). */
const KEPT_OUTPUT = 6_000;

/**
 * A setup command's failure for want of the network, remembered within `retryAfterMs` (null: none, too old, or dated
 * in the future — a clock moved back must not make it last longer).
 */
export async function recallSetupFailure(
  file: string,
  retryAfterMs: number,
  now: Date,
): Promise<(RememberedFailure & { retryAt: Date }) | null> {
  if (retryAfterMs <= 0) return null;
  const failed = await readFailure(file);
  if (!failed) return null;
  const retryAt = new Date(failed.at.getTime() + retryAfterMs);
  return retryAt > now && failed.at <= now ? { ...failed, retryAt } : null;
}

/** Remember a setup command's failure (its output's tail), or forget one once the command has passed. */
export async function noteSetupResult(
  file: string,
  result: { ok: boolean; exitCode?: number | null; output: string },
  at: Date,
): Promise<void> {
  if (result.ok) {
    await rm(file, { force: true }).catch(() => undefined);
    return;
  }
  if (!unreachableHost(result.output)) return;
  await writeFailure(file, {
    at,
    error: gist(result.output),
    ...(typeof result.exitCode === "number" ? { exitCode: result.exitCode } : {}),
    output: result.output.slice(-KEPT_OUTPUT),
  }).catch(() => undefined);
}

/** The gist of a failure: its last error line (pip's `ERROR: …`, npm's `npm error …`), else its last line, short. */
export function gist(output: string): string {
  const lines = output
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const line = [...lines].reverse().find((l) => /\berror\b/i.test(l)) ?? lines.at(-1) ?? "no output";
  return line.replace(/^ERROR:\s*/, "").slice(0, 120);
}

/** A remembered failure, read only from a regular file of the app's, not through a link; null when absent or unreadable. */
export async function readFailure(file: string): Promise<RememberedFailure | null> {
  try {
    const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const info = await handle.stat();
      if (!info.isFile() || info.size > 4 * KEPT_OUTPUT) return null;
      const data = JSON.parse(await handle.readFile("utf8")) as Record<string, unknown>;
      const at = typeof data.at === "string" ? new Date(data.at) : null;
      if (!at || Number.isNaN(at.getTime())) return null;
      return {
        at,
        error: typeof data.error === "string" ? data.error.slice(0, 160) : "",
        ...(Number.isInteger(data.exitCode) ? { exitCode: data.exitCode as number } : {}),
        ...(typeof data.output === "string" ? { output: data.output.slice(-KEPT_OUTPUT) } : {}),
      };
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}

/** Written whole or not at all (a temporary file renamed onto it), readable by the app alone. */
export async function writeFailure(file: string, failure: RememberedFailure): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2, 8)}.tmp`;
  await writeFile(tmp, JSON.stringify({ ...failure, at: failure.at.toISOString() }), { mode: 0o600, flag: "wx" });
  await rename(tmp, file);
}

/**
 * A repository's setup command, unless it failed for want of the network (a host that did not resolve or refused, see
 * {@link unreachableHost}) less than `retryAfterMs` ago under the same network setting: then it is not run, and its
 * report is that failure's — the same exit code and output, so the run goes on (or stops) as it did — with a last line
 * saying it was not run, when it failed, and when it is tried again. A command that ran is remembered when it failed
 * that way, and forgotten when it passed. One that could not run, timed out or was stopped teaches nothing.
 */
export async function setupThroughMemory(
  place: NetworkMemoryPlace,
  line: string,
  run: () => Promise<CheckReport>,
  now: () => Date = () => new Date(),
): Promise<CheckReport> {
  const file = setupFailureFile(place.dir, place.network ?? "", line);
  const kept = await recallSetupFailure(file, place.retryAfterMs, now());
  if (kept)
    return {
      kind: "setup",
      ok: false,
      command: line,
      locations: [],
      exitCode: kept.exitCode ?? 1,
      output: `${kept.output ? `${kept.output.trimEnd()}\n\n` : ""}${notRunLine(kept)}`,
    };
  const report = await run();
  const taught = report.ok || (typeof report.exitCode === "number" && !report.timedOut && !report.environmentError);
  if (place.retryAfterMs > 0 && taught) await noteSetupResult(file, report, now());
  return report;
}

/** `[aider-bot] not run: it failed at 06:01 UTC for want of the network, tried again after 06:31 UTC; its error: …` */
function notRunLine(kept: RememberedFailure & { retryAt: Date }): string {
  const hm = (d: Date) => d.toISOString().slice(11, 16);
  return `[aider-bot] not run: it failed at ${hm(kept.at)} UTC for want of the network, tried again after ${hm(kept.retryAt)} UTC; its error: ${kept.error.slice(0, 70)}`;
}
