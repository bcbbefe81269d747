import type { Exec, ExecRequest } from "../exec/types.js";
import { parseLocations } from "./parse-locations.js";
import { shellQuote } from "./shell-quote.js";
import { checkShellScript } from "./check-shell.js";
import { missingNamedTool } from "./missing-tool.js";
import { stripAnsi } from "./strip-ansi.js";
import { truncateOutput } from "./truncate-output.js";
import type { CheckReport } from "./types.js";
import type { ImpliedTool, RunnerFallback } from "./discover/types.js";
import { provideTool, type ToolOutcome } from "./tool-shelf.js";

export { shellQuote } from "./shell-quote.js";

export interface CheckCommand {
  /** `setup` commands prepare the checkout (install deps); their failures come back as setup failures. */
  kind: "lint" | "test" | "setup";
  /** A user-configured command line, run by the shell. */
  command: string;
  cwd: string;
  timeoutMs: number;
  /** Edited files (repository-relative): substituted for `{files}`, else appended to lint commands. */
  files?: readonly string[];
  /** Token budget for the output kept in the report (head and tail). */
  maxTokens?: number;
  /**
   * Run as CI runs its scripts, in `bash -e` (see checkShellScript): for a command discovered from the repository's
   * CI. A configured command (`.github/aider.yml`) runs in the plain shell, as its author wrote it for `sh -c`.
   */
  ciShell?: boolean;
  signal?: AbortSignal;
  /**
   * A command run by a Python project runner (`uv run pytest tests/`): when the runner is not there (exit 127), what
   * stands in for it with the sandbox's Python (see {@link runCheckCommand}).
   */
  fallback?: RunnerFallback;
  /**
   * An implied tool install (`command` is its plain form): where the exec keeps a tools shelf for the repository, the
   * tool comes from there, or is installed onto it, instead (see {@link runToolInstall}).
   */
  tool?: ImpliedTool;
}

/**
 * The command line actually run: `{files}` replaced by the quoted file list, else the files appended to a lint
 * command, as Aider's `--lint-cmd` does (docs/behaviour.md#checks) but in one run for all files. A name starting with `-`
 * gets `./` so the tool cannot read it as an option.
 *
 * @example commandLine({ kind: "lint", command: "ruff check", files: ["a b.py"], … }) // "ruff check 'a b.py'"
 */
export function commandLine(cmd: Pick<CheckCommand, "kind" | "command" | "files">): string {
  const files = (cmd.files ?? []).map((f) => shellQuote(f.startsWith("-") ? `./${f}` : f)).join(" ");
  if (cmd.command.includes("{files}")) return cmd.command.split("{files}").join(files);
  return cmd.kind === "lint" && files ? `${cmd.command} ${files}` : cmd.command;
}

/**
 * Set for every check command. Python trusts its cached bytecode while a source file keeps its size and its mtime in
 * whole seconds, and a run's edits can rewrite a file twice within one second at the same size (`a * b` → `a + b`):
 * the next test would run the old code and report the old failure as the new one. Without written bytecode every
 * command compiles what the checkout holds, and no `__pycache__/` folder is left in it.
 */
const CHECK_ENV: Readonly<Record<string, string>> = { PYTHONDONTWRITEBYTECODE: "1" };

/**
 * Run a configured lint/test/setup command through the exec door (allow-listed env, timeout, output cap) and
 * report it: exit 0 is a pass whatever was printed; the output is ANSI-stripped, cut to a token budget (head and
 * tail) and searched for error locations. A command that cannot start, is not installed (126/127), is cancelled,
 * or — for lint and setup — times out, is an `environmentError` with what happened and what to do, so the model is
 * not asked to "fix" a missing tool (docs/behaviour.md#aider-bugs-we-avoid (#16)). A timed-out test stays a failure the model may have caused
 * (an edit can introduce an endless loop), but says so plainly.
 */
export async function runCheckCommand(exec: Exec, cmd: CheckCommand): Promise<CheckReport> {
  const place = cmd.tool && exec.toolShelf ? await exec.toolShelf() : null;
  if (cmd.tool && place) return toolReport(cmd, await provideTool(exec, place, cmd.tool));
  const report = await runOnce(exec, cmd);
  if (!cmd.fallback || report.ok || cmd.signal?.aborted || !runnerIsMissing(report, cmd.fallback.runner)) return report;
  return standIn(exec, cmd, cmd.fallback, report);
}

/**
 * An implied tool install served from the repository's tools shelf, as the step's report: under the planned command
 * line (the plan, the status and the base compare by it), saying where the tool came from — or, when an install
 * failed for want of the network a while ago, that it was not tried again, when it will be, and why.
 */
function toolReport(cmd: CheckCommand, outcome: ToolOutcome): CheckReport {
  const base = { kind: cmd.kind, command: commandLine(cmd), locations: [] };
  const tool = `\`${cmd.tool!.requirement}\``;
  switch (outcome.kind) {
    case "restored":
      return {
        ...base,
        ok: true,
        exitCode: 0,
        output: `${tool} copied from this repository's tools shelf (installed by an earlier job, ${outcome.installedAt.toISOString()}).`,
      };
    case "installed":
      return {
        ...base,
        ok: true,
        exitCode: 0,
        output: `${tool} installed, and kept for this repository's later jobs.`,
      };
    case "present":
      return { ...base, ok: true, exitCode: 0, output: `\`${cmd.tool!.name}\` is installed in the sandbox already.` };
    case "not-retried": {
      const ago = Math.max(1, Math.round((Date.now() - outcome.failedAt.getTime()) / 60_000));
      const at = outcome.retryAt.toISOString().slice(11, 16);
      return {
        ...base,
        ok: false,
        exitCode: null,
        environmentError: true,
        output: `not tried again: its install failed ${ago} min ago for want of the network (${outcome.error.slice(0, 60)}); next try after ${at} UTC`,
      };
    }
    case "failed": {
      const r = outcome.result;
      const said = r.timedOut
        ? "ERROR: the install did not finish in time"
        : r.spawnError
          ? `ERROR: ${r.spawnError}`
          : "";
      const missing =
        r.exitCode === 0 ? `ERROR: pip ended well, but no \`${cmd.tool!.name}\` command was installed` : "";
      const output = truncateOutput(
        stripAnsi([r.output, said, missing].filter(Boolean).join("\n")),
        cmd.maxTokens ?? 4_000,
      );
      return { ...base, ok: false, exitCode: r.exitCode === 0 ? 1 : r.exitCode, output };
    }
  }
}

/** Whether a command failed because its runner is not installed: exit 127, or the shell saying so. */
function runnerIsMissing(report: CheckReport, runner: string): boolean {
  if (report.exitCode === 127) return true;
  const names = runner === "uv" ? "uvx?" : runner;
  return (
    report.exitCode !== 0 &&
    new RegExp(`(?:^|\\s)(?:${names}): (?:command )?not found`, "m").test(report.output.slice(0, 2_000))
  );
}

/**
 * The repository's command could not run because its Python project runner (uv, tox, hatch, …) is not there — its
 * install failed, or nothing installs it here. When the plan names a stand-in (`python3 -m pytest tests/`), it runs,
 * and its report says what it stood in for; when there is none, or the sandbox's Python says it has no such module,
 * the report says the runner is missing and nothing stood in, as an environment error (not the code's fault).
 */
async function standIn(
  exec: Exec,
  cmd: CheckCommand,
  fallback: RunnerFallback,
  original: CheckReport,
): Promise<CheckReport> {
  const line = commandLine(cmd);
  const why = `\`${fallback.runner}\` is not installed here (exit ${original.exitCode ?? "none"})`;
  const label = `The ${cmd.kind} command \`${line}\``;
  const missing = (what: string): CheckReport => ({
    ...original,
    ok: false,
    environmentError: true,
    runnerMissing: what,
    output: `${label} could not run: ${what}.${tailOf(original.output)}`,
  });
  if (!fallback.command || !fallback.module) return missing(`${why}, and nothing in the sandbox stands in for it`);
  // Run straight away, not after a probe (`python3 -m pytest --version`): a Python start and a pytest import more
  // for every stand-in, on the change and on the base. Python says itself when the module is not there.
  const report = await runOnce(exec, { ...cmd, command: fallback.command, files: [] });
  if (!report.ok && !cmd.signal?.aborted && moduleIsMissing(report.output, fallback.module))
    return missing(
      `${why}, and the sandbox's Python cannot run \`${fallback.module}\` in its place (\`${fallback.command}\`: ${report.output.trim()}): install ${fallback.module} for python3 in the image, or let the sandbox reach a package index`,
    );
  return { ...report, standIn: { for: line, runner: fallback.runner, why } };
}

/**
 * What every check command's request has in common, whatever its command line: a shell command in `cwd`, with the
 * check environment and output cap. The check exec starts a sandbox of this shape ahead of the run's first check
 * (see exec/sandbox-ahead), which serves a command only when its sandbox is exactly this one.
 */
export function checkRequestShape(cwd: string): ExecRequest {
  return { command: "", shell: true, cwd, env: CHECK_ENV, maxOutputBytes: 400_000 };
}

async function runOnce(exec: Exec, cmd: CheckCommand): Promise<CheckReport> {
  const line = commandLine(cmd);
  const kind = cmd.kind;
  const r = await exec.run({
    ...checkRequestShape(cmd.cwd),
    // Reported as `line`: the shell choice and staging around it are the bot's, not the repository's.
    command: checkShellScript(line, { stopAtFirstFailure: cmd.ciShell === true }),
    label: line,
    timeoutMs: cmd.timeoutMs,
    ...(cmd.signal ? { signal: cmd.signal } : {}),
  });
  const base = { kind, ok: false, command: line, exitCode: r.exitCode } as const;
  const fail = (what: string, extra: Partial<CheckReport> = {}): CheckReport => ({
    ...base,
    output: what,
    locations: [],
    ...extra,
  });
  const plain = stripAnsi(r.output);
  const output = truncateOutput(plain, cmd.maxTokens ?? 4_000);
  const label = `The ${cmd.kind} command \`${line}\``;

  // The sandbox refused or could not run it (an image that could not be pulled, a container that did not start):
  // said as such, with the sandbox's reason and advice, never as a tool to install.
  if (r.spawnError?.startsWith("not run: ")) {
    const why = r.spawnError.slice("not run: ".length);
    return fail(`${label} was not run: ${why}.`, { environmentError: true, notRun: why });
  }
  if (r.spawnError) {
    return fail(
      `${label} could not be started: ${r.spawnError}. Check the command and that its tool is installed (a setup command can install it).`,
      { environmentError: true },
    );
  }
  if (cmd.signal?.aborted)
    return fail(`${label} was stopped because the run was cancelled.`, { environmentError: true });
  if (r.timedOut) {
    const seconds = Math.round(cmd.timeoutMs / 1000);
    const advice =
      cmd.kind === "test"
        ? "If the change can make the code hang (an endless loop, a wait that never ends), fix that; otherwise raise `timeout` in .github/aider.yml."
        : "Raise `timeout` in .github/aider.yml or make the command faster.";
    return fail(`${label} did not finish within ${seconds} s and was stopped. ${advice}${tailOf(output)}`, {
      timedOut: true,
      ...(cmd.kind === "test" ? {} : { environmentError: true }),
    });
  }
  // A program the command itself names is not installed here (`CC=clang make` without clang): the sandbox's lack.
  const missingTool = r.exitCode !== 0 && r.exitCode !== null ? missingNamedTool(line, plain) : null;
  if (missingTool)
    return fail(
      `${label} could not run: \`${missingTool}\`, which it names, is not installed here (exit ${r.exitCode}). Install it in a setup command or an image that has it, or leave the command out in .github/aider.yml.${tailOf(output)}`,
      { environmentError: true, missingTool },
    );
  if (r.exitCode === 127 || r.exitCode === 126) {
    const what =
      r.exitCode === 127
        ? "was not found (exit 127)"
        : "could not be executed (exit 126: not executable or permission denied)";
    return fail(
      `${label} ${what}. Install the tool in a setup command or fix the command in .github/aider.yml.${tailOf(output)}`,
      { environmentError: true },
    );
  }
  if (r.exitCode === null) return fail(`${label} was killed by a signal (out of memory?).${tailOf(output)}`);
  if (r.exitCode === 0) return { ...base, ok: true, output, locations: [] };
  return { ...base, output, locations: parseLocations(plain, cmd.cwd) };
}

/**
 * Whether `python3 -m <module>` failed because the module is not installed: Python's own one-line answer
 * (`/usr/bin/python3: No module named pytest`, or `… No module named x.__main__; 'x' is a package …` for a package
 * that cannot run), and nothing else — a test run whose own imports fail prints far more, with the name quoted.
 */
export function moduleIsMissing(output: string, module: string): boolean {
  const text = output.trim();
  if (text.includes("\n")) return false;
  const name = module.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^\\S*python[0-9.]*: No module named ${name}(?:$|\\.__main__;)`).test(text);
}

function tailOf(output: string): string {
  return output.trim() ? `\n\nIts output:\n${output}` : "";
}
