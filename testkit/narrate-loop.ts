/** What the demo tells about one run's edit loop, from what the model was sent and the run's status comment. */
export interface LoopNarration {
  lines: string[];
  /** A failed check was sent back to the model. */
  reflected: boolean;
  /** The run ended with its commands run and passing, and pushed. */
  green: boolean;
}

export interface LoopInput {
  /** The last message of each request to the coder model, in order (commit-subject requests left out). */
  prompts: readonly string[];
  /** What the demo says each model answer did, in the same order. */
  turns: readonly { says: string }[];
  /** The repository's test command. */
  testCommand: string;
  /** The run's final status comment. */
  status: string;
}

/** How a failed check starts its reflection (src/checks/render-check-reflection.ts). */
const REFLECTION = /^# (The (?:test|lint) command `[^`]*` failed[^\n]*|The syntax check failed[^\n]*)/;
/** The lines of a test runner's output that say what failed (TAP, pytest, jest, go test and the like). */
const TELLING = /^\s*(not ok\b|error:|#\s*fail\b|FAIL\b|--- FAIL|E\s)|\w*Error\b|\bFAILED\b|\bexpected\b/;
const MAX_EXCERPT = 6;
const INDENT = "        ";

/**
 * The lines the demo prints between the request and the push: each model turn, and before a turn that answers a
 * failed check, the check's verdict and the telling lines of the output the model was sent. Pure: it reads the
 * recorded requests and the status comment, so what it prints is what happened.
 */
export function narrateLoop(input: LoopInput): LoopNarration {
  const lines: string[] = [];
  let reflected = false;
  input.prompts.forEach((prompt, i) => {
    const failed = REFLECTION.exec(prompt);
    if (failed) {
      reflected = true;
      lines.push(`checks  ${failed[1]}. The bot sends the failure back to the model:`);
      const output = fencedBody(prompt).split("\n");
      const telling = output.filter((l) => TELLING.test(l)).slice(0, MAX_EXCERPT);
      for (const l of telling) lines.push(`${INDENT}│ ${l.trim()}`);
      lines.push(`${INDENT}(with the whole output, ${output.length} lines, and the code at the lines it reports)`);
    }
    const turn = input.turns[i];
    if (turn) lines.push(`model   ${turn.says}`);
  });
  const ran = /Repository commands ran (in a bubblewrap sandbox|without a sandbox)/.test(input.status);
  const skipped = /were \*\*not run\*\*/.test(input.status);
  const stillFails = /still fails/.test(input.status);
  const pushed = /🚀 (Pushed|Opened)/.test(input.status);
  const green = pushed && ran && !skipped && !stillFails;
  if (green)
    lines.push(`checks  \`${input.testCommand}\` passes: the checks are green, so the bot commits and pushes.`);
  else if (skipped) lines.push(`checks  NOT run (see the status comment): the change was pushed unchecked.`);
  else if (stillFails) lines.push(`checks  still failing after the last reflection (see the status comment).`);
  else lines.push(`checks  the run did not end green (see the status comment).`);
  return { lines, reflected, green };
}

/** The body of the first fenced block of a reflection (the command's output). */
function fencedBody(text: string): string {
  const m = /(`{3,})\n([\s\S]*?)\n\1/.exec(text);
  return m ? m[2]! : "";
}
