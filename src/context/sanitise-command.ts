import type { AnyCommand } from "../commands/parse-command.js";
import { sanitiseText } from "./sanitise-text.js";

/**
 * The maintainer's command with its instruction sanitised like every other GitHub text (pure): text pasted into a
 * comment can carry hidden parts its author never saw. Applied after parsing, so it never changes which line is
 * the command. File paths and thread ids are validated by the grammar and left as they are.
 */
export function sanitiseCommand<C extends AnyCommand>(command: C): C {
  if (!("text" in command)) return command;
  return { ...command, text: sanitiseText(command.text).text };
}
