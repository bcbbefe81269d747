import { shellQuote } from "./shell-quote.js";
import { withStagedEdits } from "./stage-edits-for-check.js";

/**
 * The shell text that runs a check command as CI runs its scripts: with bash where there is one (GitHub Actions' and
 * Travis's default shell: `diff -u <(echo -n) <(gofmt -d -s .)`, `[[ … ]]` and `set -o pipefail` are bash), and
 * stopping at the first failing line (GitHub's `bash -e`), so a script kept whole (`cd tests` ⏎ `./unittest.sh` ⏎
 * `cd ..` ⏎ `echo done`) fails when its tests fail instead of passing on its last line. Where the image has no bash
 * the same script runs in `sh -e`. Exit codes are the script's own (`exec` replaces the outer shell).
 *
 * Only for commands discovered from CI (`stopAtFirstFailure`): a command written in `.github/aider.yml` runs in the
 * plain shell (`sh -c`), as its author wrote it — `a; b` there still runs `b` when `a` fails.
 */
export function checkShellScript(line: string, opts: { stopAtFirstFailure: boolean }): string {
  const script = withStagedEdits(line);
  if (!opts.stopAtFirstFailure) return `${USER_BIN}\n${script}`;
  return `${USER_BIN}\nif command -v bash >/dev/null 2>&1; then exec bash -e -c ${shellQuote(script)}; fi\nset -e\n${script}`;
}

/**
 * `~/.local/bin` on PATH, as a CI runner's login has it: where `pip install --user` puts scripts and, in the sandbox,
 * `npm install -g` (its prefix is the job's `~/.local` there), so a tool a setup step installed is found by the next.
 */
const USER_BIN = `case ":$PATH:" in *":$HOME/.local/bin:"*) ;; *) PATH="$HOME/.local/bin:$PATH"; export PATH ;; esac`;
