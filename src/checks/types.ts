/** A problem found by the syntax check, a linter or a test run, with a location when one was parsed. */
export interface CheckLocation {
  path: string;
  line: number;
  column?: number;
  message?: string;
}

export interface CheckReport {
  kind: "syntax" | "lint" | "test" | "setup";
  ok: boolean;
  /** The command that ran ("" for the built-in syntax check). */
  command: string;
  /** Output stripped of ANSI codes and truncated (head + tail kept) to the budget. */
  output: string;
  locations: CheckLocation[];
  timedOut?: boolean;
  /** The command could not run at all (not installed, cannot start): a broken environment, not the code's fault. */
  environmentError?: boolean;
  /** The command's exit code (null when it was killed or never started); absent for the syntax check. */
  exitCode?: number | null;
  /**
   * The sandbox did not run the command at all (its container's image could not be pulled or started, the job was
   * ending): why, as the sandbox said it. Not the command's failure, and no tool to install.
   */
  notRun?: string;
  /** It failed the same way on the base (the commit the change starts from): what the base's run said. */
  onBase?: string;
  /** Failing tests that failed on the base too (the others are new): listed so the model leaves them be. */
  preExistingTests?: string[];
  /**
   * `command` ran in place of the repository's command, whose Python project runner is not there: what it stood in
   * for, that runner, and what happened when the repository's command ran.
   */
  standIn?: { for: string; runner: string; why: string };
  /** The repository's command needs a Python project runner that is not there, and nothing stood in: why. */
  runnerMissing?: string;
  /** A program the command names is not installed where it ran (see checks/missing-tool): its name. */
  missingTool?: string;
}
