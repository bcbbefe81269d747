/**
 * A check command that failed because a program its own text names is not installed where it ran: `CC=clang make`
 * on a host without clang (make: `clang: No such file or directory`, exit 2), `flake8 .` without flake8 (the shell:
 * `flake8: not found`, exit 127). Such a failure is the sandbox's, not the change's: no edit installs a compiler, and
 * the base would fail the same way, so the run neither asks the model to fix it nor waits for the base's result.
 *
 * Only a name written in the command itself counts (the command comes from the default branch's CI or
 * `.github/aider.yml`, not from the change). A program that a script or Makefile of the checkout calls without
 * the command naming it (`make test` running `pytest`) may be missing because of the change, and is compared with
 * the base as every other failure is. The not-found line must be the failure's last word (make's own trailer lines
 * aside), so an earlier test failure is never hidden behind a later missing tool.
 */

/** make's lines after the failure: `make[1]: Leaving directory …`, `make: *** [Makefile:3: all] Error 127`. */
const MAKE_TRAILER = /^make(?:\[\d+\])?: (?:\*\*\* |Leaving directory )/;

/** The lines that say a program was not found, each capturing its name. */
const NOT_FOUND = [
  // dash (`/bin/sh: 1: clang: not found`), bash (`bash: line 1: x: command not found`, `x: command not found`).
  /^(?:[^\s:]*(?:sh|bash)(?:: line \d+| ?: \d+)?: )?([^\s:/]+): (?:command )?not found$/,
  // make running a recipe's program itself, without a shell.
  /^make(?:\[\d+\])?: ([^\s:/]+): No such file or directory$/,
];

/**
 * The program `line` names that its failed run could not find, or null: the last meaningful line of `output` says a
 * program was not found, and that program is a word of the command line (`clang` in `CC=clang make`).
 */
export function missingNamedTool(line: string, output: string): string | null {
  const last = output
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !MAKE_TRAILER.test(l))
    .at(-1);
  if (!last) return null;
  for (const pattern of NOT_FOUND) {
    const name = pattern.exec(last)?.[1];
    if (name && namedIn(line, name)) return name;
  }
  return null;
}

/** Whether `name` stands as a word of `line`: a command, or a value (`CC=clang`), not part of a longer word or path. */
function namedIn(line: string, name: string): boolean {
  const quoted = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?:^|[\\s=;&|(\`"'])${quoted}(?=$|[\\s;&|)\`"'])`).test(line);
}
