import type { CheckCommandSpec, CoderOptions } from "./types.js";

/** Source named for commands given as plain options (the repo config in the App, flags in the CLI). */
export const CONFIGURED_SOURCE = ".github/aider.yml";

/**
 * The run's setup, lint and test commands in the order they run: `checkCommands` when the run has a plan, else the
 * plain `setupCommands`/`lintCommands`/`testCommand` options. Tests are listed only when `autoTest` is on.
 */
export function checkCommandsOf(options: CoderOptions): CheckCommandSpec[] {
  const all: CheckCommandSpec[] = options.checkCommands ?? [
    ...(options.setupCommands ?? []).map((command) => ({ kind: "setup" as const, command, source: CONFIGURED_SOURCE })),
    ...options.lintCommands.map((command) => ({ kind: "lint" as const, command, source: CONFIGURED_SOURCE })),
    ...(options.testCommand
      ? [{ kind: "test" as const, command: options.testCommand, source: CONFIGURED_SOURCE }]
      : []),
  ];
  const order = { setup: 0, lint: 1, test: 2 } as const;
  return all.filter((c) => c.kind !== "test" || options.autoTest).sort((a, b) => order[a.kind] - order[b.kind]);
}

/** A stable key of a command within a run. */
export const checkKey = (c: CheckCommandSpec): string => `${c.kind}\u0000${c.cwd ?? ""}\u0000${c.command}`;

/**
 * Whether a failed setup line leaves the run to go on (pure): it only installs a Python project runner (`pip install
 * hatch`, the implied `uv` install) or could not run for want of one (`uv sync`: exit 127), and a lint or test command
 * of `specs` has a stand-in for that runner, which runs with the sandbox's Python instead. Any other failed setup
 * stops the run, as a broken environment.
 */
export function setupMayFail(
  spec: CheckCommandSpec,
  report: { runnerMissing?: string },
  specs: readonly CheckCommandSpec[],
): boolean {
  if (spec.kind !== "setup") return false;
  const runners = spec.installsRunners ?? (report.runnerMissing && spec.fallback ? [spec.fallback.runner] : []);
  return specs.some((s) => s.kind !== "setup" && !!s.fallback?.command && runners.includes(s.fallback.runner));
}

/** The gist of a failed install's output: its last error line (pip's `ERROR: …`), else its last line, kept short. */
export function installError(output: string): string {
  const lines = output
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const error = [...lines].reverse().find((l) => /\berror\b/i.test(l)) ?? lines.at(-1) ?? "no output";
  return error.length > 160 ? `${error.slice(0, 157)}…` : error;
}
