import { CommanderError } from "commander";

/** A usage problem the user can fix by changing the command line (exit 2). */
export class UsageError extends Error {
  override name = "UsageError";
}

/** Map an error that escaped a command to the CLI's exit codes: 2 for usage, 1 otherwise; prints it. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) {
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return 0;
    return 2; // commander already printed the message
  }
  if (error instanceof UsageError) {
    process.stderr.write(`aider-bot: ${error.message}\n`);
    return 2;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`aider-bot: ${message}\n`);
  return 1;
}
