import type { Exec } from "../exec/types.js";
import { parseLocations } from "./parse-locations.js";
import { stripAnsi } from "./strip-ansi.js";
import { truncateOutput } from "./truncate-output.js";
import type { CheckReport } from "./types.js";

export interface CheckCommand {
  kind: "lint" | "test" | "setup";
  command: string;
  cwd: string;
  timeoutMs: number;
  /** Edited files: appended to lint commands (like Aider's --lint-cmd), or substituted for `{files}`. */
  files?: readonly string[];
  maxTokens?: number;
  signal?: AbortSignal;
}

/** POSIX shell quoting. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./=:@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The command line actually run: `{files}` substituted, or the files appended for lint commands. */
export function commandLine(cmd: CheckCommand): string {
  const files = (cmd.files ?? []).map(shellQuote).join(" ");
  if (cmd.command.includes("{files}")) return cmd.command.split("{files}").join(files);
  return cmd.kind === "lint" && files ? `${cmd.command} ${files}` : cmd.command;
}

/**
 * Run a configured lint/test/setup command through the exec door (allow-listed env, timeout, output cap). A command
 * that cannot start or times out is reported as such — what happened and what to do — so the model is not asked
 * to "fix" a missing tool (AIDER.md 8.2 #16).
 */
export async function runCheckCommand(exec: Exec, cmd: CheckCommand): Promise<CheckReport> {
  const line = commandLine(cmd);
  const r = await exec.run({ command: line, shell: true, cwd: cmd.cwd, timeoutMs: cmd.timeoutMs, maxOutputBytes: 400_000, ...(cmd.signal ? { signal: cmd.signal } : {}) });
  const kind = cmd.kind === "setup" ? "test" : cmd.kind;
  if (r.spawnError) {
    return { kind, ok: false, command: line, output: `The ${cmd.kind} command could not be started: ${r.spawnError}. Check the command in .github/aider.yml.`, locations: [], environmentError: true };
  }
  const output = truncateOutput(stripAnsi(r.output), cmd.maxTokens ?? 4000);
  if (r.timedOut) {
    return { kind, ok: false, command: line, output: `The ${cmd.kind} command \`${line}\` did not finish within ${Math.round(cmd.timeoutMs / 1000)} s and was stopped. Raise \`timeout\` in .github/aider.yml or make the command faster.\n\n${output}`, locations: [], timedOut: true };
  }
  if (r.exitCode === 127) {
    return { kind, ok: false, command: line, output: `The ${cmd.kind} command \`${line}\` was not found (exit 127). Install the tool in a setup step or fix the command in .github/aider.yml.\n\n${output}`, locations: [], environmentError: true };
  }
  return { kind, ok: r.exitCode === 0, command: line, output, locations: r.exitCode === 0 ? [] : parseLocations(output, cmd.cwd) };
}
