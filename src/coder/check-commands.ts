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
