/**
 * The repository's own CI commands as the bot found and ran them, timed once on the host: the replay judge's second
 * measure of the bot's time. The bot's time ÷ these commands' time says how much of a run is the repository's own
 * work (setup, lint, test, run once as CI would) and how much the bot adds around it (clone, map, model, the base's
 * run, push, and running the checks more than once).
 *
 * The command list is the app's own: the `checks` of its `run finished` log line (src/run/run-outcome.ts
 * `checksRan`), so the bench never re-discovers anything; each command runs through the bot's own check runner
 * (`runCheckCommand`: the same shell and staging), without the sandbox.
 */
import path from "node:path";
import { runCheckCommand } from "../../src/checks/run-check-command.js";
import type { Exec } from "../../src/exec/types.js";
import type { CheckRan } from "../../src/run/run-outcome.js";

/** The run's id in its status comment (`<!-- aider-bot:run:ID -->`): the `job` of its log lines. */
export function runIdOf(status: string): string | null {
  return /<!-- aider-bot:run:([A-Za-z0-9._-]+) -->/.exec(status)?.[1] ?? null;
}

/**
 * The check commands the run `runId` ran, in order, from the app's log (JSON lines, other lines ignored); null when
 * its `run finished` line is not there (an app that does not log them, a run that did not end). Commands the bot
 * did not run (`not-run`: an earlier one failed, or the sandbox could not run) are left out.
 */
export function checksRanIn(appLog: string, runId: string): CheckRan[] | null {
  for (const line of appLog.split("\n")) {
    if (!line.startsWith("{") || !line.includes('"run finished"') || !line.includes(runId)) continue;
    let entry: { msg?: unknown; job?: unknown; checks?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if (entry.msg !== "run finished" || entry.job !== runId) continue;
    const checks = Array.isArray(entry.checks) ? (entry.checks as CheckRan[]) : [];
    return checks.filter((c) => c.status !== "not-run");
  }
  return null;
}

export interface CiTime {
  ms: number;
  /** Every command exited 0. */
  ok: boolean;
  /** The first failing command and its last output line. */
  tail: string;
}

/**
 * Run `checks` once, in order, in the checkout `dir` (a fresh clone: CI starts from one), timed together. A failing
 * command is noted and the rest still run, as the time of the whole list is what is compared.
 */
export async function timeCiCommands(
  exec: Exec,
  dir: string,
  checks: readonly CheckRan[],
  env: Readonly<Record<string, string>>,
): Promise<CiTime> {
  const withEnv: Exec = { run: (req) => exec.run({ ...req, env: { ...req.env, ...env } }) };
  const t0 = performance.now();
  let tail = "";
  for (const c of checks) {
    const report = await runCheckCommand(withEnv, {
      kind: c.kind,
      command: c.command,
      cwd: c.cwd ? path.join(dir, c.cwd) : dir,
      timeoutMs: 600_000,
      files: [],
      ...(c.asWritten ? { ciShell: true } : {}),
    });
    if (!report.ok && !tail) tail = `\`${c.command.split("\n")[0]}\`: ${lastLine(report.output)}`;
  }
  return { ms: performance.now() - t0, ok: !tail, tail };
}

const lastLine = (output: string) =>
  output
    .trim()
    .split("\n")
    .filter((l) => l.trim())
    .slice(-1)
    .join("")
    .slice(0, 160);
