import type { CheckPlan, ExcludedCheck, PlannedCommand } from "./types.js";

/**
 * A coverage tool CI wraps its tests in, and how to read its command line: the options that take a value as the
 * next word (every other option is `--name=value` or a flag), and the words after it that are its own commands, not
 * the wrapped one (`nyc report`).
 */
interface Wrapper {
  valueOptions: ReadonlySet<string>;
  flags: ReadonlySet<string>;
  subcommands: ReadonlySet<string>;
  /** An option that starts the wrapped command (`coverage run -m pytest`). */
  starts?: string;
}

const NYC: Wrapper = {
  valueOptions: new Set(
    "-r --reporter -n --include -x --exclude -e --extension -i --require -t --temp-dir --temp-directory --report-dir --cwd --nycrc-path --instrumenter --source-map --branches --functions --lines --statements --exclude-after-remap".split(
      " ",
    ),
  ),
  flags: new Set(
    "-a --all -s --silent --check-coverage --per-file --clean --no-clean --cache --no-cache --produce-source-map --hook-require --hook-run-in-context --hook-run-in-this-context --exclude-node-modules --skip-empty --skip-full --show-process-tree --es-modules".split(
      " ",
    ),
  ),
  subcommands: new Set(["report", "check-coverage", "instrument", "merge"]),
};

const C8: Wrapper = {
  valueOptions: new Set(
    "-r --reporter -o --reports-dir --report-dir -n --include -x --exclude -e --extension --src --temp-directory --branches --functions --lines --statements --per-file --config -c --exclude-after-remap".split(
      " ",
    ),
  ),
  flags: new Set(
    "-a --all --check-coverage --clean --no-clean --exclude-node-modules --skip-full --experimental-monocart --allowExternal --allow-external --omit-relative".split(
      " ",
    ),
  ),
  subcommands: new Set(["report", "check-coverage"]),
};

/** `coverage run`'s options: all but these few are written `--name=value` or are flags. */
const COVERAGE_RUN: Wrapper = {
  valueOptions: new Set(["--source", "--rcfile", "--include", "--omit", "--context", "--concurrency", "--data-file"]),
  flags: new Set(["-a", "--append", "-p", "--parallel-mode", "--branch", "-L", "--pylib", "--timid", "--save-signal"]),
  subcommands: new Set(),
  starts: "-m",
};

/** `istanbul cover`'s options (the wrapped script's own arguments follow `--`). */
const ISTANBUL: Wrapper = {
  valueOptions: new Set(["--root", "-x", "--report", "--dir", "--config", "--hook-run-in-context", "-i"]),
  flags: new Set(["--print", "--preserve-comments", "--include-all-sources", "--verbose", "-v", "--handle-sigint"]),
  subcommands: new Set(),
};

/** What a shell word must look like to be moved as is: no quoting, substitution or operators to get wrong. */
const PLAIN_WORD = /^[\w./:@%+,=~-]+$/;

/**
 * The words past a wrapper's options, or null when a word is not plain, an option is not known (its value could be
 * taken for the command), or what follows is the wrapper's own subcommand.
 */
function pastOptions(words: string[], w: Wrapper): string[] | null {
  let i = 0;
  while (i < words.length && words[i]!.startsWith("-")) {
    const word = words[i]!;
    if (word === "--") return null;
    if (word === w.starts) break;
    if (/^--[\w-]+=/.test(word)) i += 1;
    else if (w.flags.has(word)) i += 1;
    else if (w.valueOptions.has(word)) i += 2;
    else return null;
  }
  const rest = words.slice(i);
  if (!rest.length || w.subcommands.has(rest[0]!)) return null;
  return rest;
}

/** What runs a Node tool (`npx nyc`, `yarn c8`), kept in front of the unwrapped command only when it is a launcher. */
const NODE_LAUNCHER = /^(?:npx(?:\s+--no-install|\s+--yes|\s+-y)?|yarn(?:\s+exec)?|pnpm(?:\s+exec)?|bunx)\s+/;

/** One line without its coverage wrapper, and the wrapper's name; null when the line has none (or not simply). */
export function unwrapCoverage(line: string): { command: string; wrapper: string } | null {
  // `CI=1 cd x && ` and the like stay in front: they are the command's, not the wrapper's.
  const lead = /^((?:[A-Za-z_]\w*=\S*\s+)*(?:cd\s+\S+\s*&&\s*)?)/.exec(line)![1]!;
  let rest = line.slice(lead.length);
  // A pipe, a redirection, a second command: the wrapper's options and the wrapped command could be misread.
  if (/[|;&<>`$(){}'"\\\n]/.test(rest)) return null;
  const launcher = NODE_LAUNCHER.exec(rest)?.[0] ?? "";
  rest = rest.slice(launcher.length);
  const words = rest.trim().split(/\s+/);
  if (!words.every((w) => PLAIN_WORD.test(w))) return null;
  const head = words[0];
  if (head === "nyc" || head === "c8") {
    const wrapped = pastOptions(words.slice(1), head === "nyc" ? NYC : C8);
    if (!wrapped) return null;
    // `npx nyc mocha`: mocha is found the way nyc was; `npx nyc npm test` needs no launcher for npm.
    const keep = launcher && !/^(?:npm|yarn|pnpm|node|bun)$/.test(wrapped[0]!) ? launcher : "";
    return { command: `${lead}${keep}${wrapped.join(" ")}`, wrapper: head };
  }
  if (launcher) return null;
  if (head === "istanbul" && words[1] === "cover") {
    const wrapped = pastOptions(words.slice(2), ISTANBUL);
    if (!wrapped) return null;
    // `istanbul cover _mocha -- -R spec`: the script's own arguments follow `--`.
    const dash = wrapped.indexOf("--");
    const script = dash < 0 ? wrapped : [...wrapped.slice(0, dash), ...wrapped.slice(dash + 1)];
    return { command: `${lead}${script.join(" ")}`, wrapper: "istanbul" };
  }
  // `coverage run [opts] -m pytest ARGS`, `python -m coverage run …`, `uv run coverage run …`: the interpreter CI
  // named, else python3 (the name every image with Python has).
  const runner = /^((?:poetry|uv|pdm|pipenv|hatch|rye)\s+run\s+)?/.exec(words.join(" "))![1] ?? "";
  const afterRunner = words.slice(runner ? 2 : 0);
  const py = /^python3?(?:\.\d+)?$/.test(afterRunner[0] ?? "") && afterRunner[1] === "-m" ? afterRunner[0] : null;
  const cov = py ? afterRunner.slice(2) : afterRunner;
  if (cov[0] !== "coverage" || cov[1] !== "run") return null;
  const wrapped = pastOptions(cov.slice(2), COVERAGE_RUN);
  if (!wrapped) return null;
  const interpreter = py ?? (runner ? "python" : "python3");
  return { command: `${lead}${runner}${interpreter} ${wrapped.join(" ")}`, wrapper: "coverage" };
}

/** A line that only reports or uploads what a coverage run collected: nothing to check without the wrapper. */
const COVERAGE_REPORT =
  /^(?:(?:npx\s+)?(?:nyc|c8)\s+(?:report|check-coverage|merge)\b|(?:(?:poetry|uv|pdm|pipenv|hatch|rye)\s+run\s+)?(?:python3?(?:\.\d+)?\s+-m\s+)?coverage\s+(?:report|xml|html|json|lcov|combine|erase|debug)\b|istanbul\s+(?:report|check-coverage)\b)/;

/** A setup line that installs only the named wrappers (`npm install -g nyc`, `pip install coverage`). */
function installsOnly(command: string, wrappers: ReadonlySet<string>): boolean {
  const m =
    /^(?:npm\s+(?:install|i|add)\s+(?:-g|--global)|yarn\s+global\s+add|pnpm\s+(?:add|install)\s+(?:-g|--global)|(?:python3?\s+-m\s+)?pip3?\s+install(?:\s+(?:-U|--upgrade|--user|-q|--quiet))*)\s+(.+)$/.exec(
      command.trim(),
    );
  if (!m) return false;
  const pkgs = m[1]!.split(/\s+/).filter((w) => !w.startsWith("-"));
  const name = (p: string) => p.replace(/^['"]|['"]$/g, "").replace(/(?:@[^/].*|\[.*|[=<>~!].*)$/, "");
  return pkgs.length > 0 && pkgs.every((p) => wrappers.has(name(p)));
}

/** Why CI's command differs from the one the bot runs. */
export function coverageNote(wrapper: string, ciCommand: string): string {
  return `CI runs \`${ciCommand}\`, wrapping the tests in \`${wrapper}\` for coverage; the bot runs them without it (it needs pass or fail, not coverage)`;
}

/**
 * The plan with coverage wrappers taken off its lint and test commands: `nyc --include=src npm test` → `npm test`,
 * `coverage run -m pytest tests` → `python3 -m pytest tests`. The bot wants pass or fail; the wrapper adds a tool to
 * install and a second place to break (an old `nyc` whose loader crashes on today's Node before any test runs), and
 * nothing the model can use. Each changed command keeps CI's line in its note; lines that only report coverage, and
 * setup lines that only install a dropped wrapper, are left out with the reason.
 */
export function dropCoverageWrappers(plan: CheckPlan): void {
  const dropped = new Set<string>();
  const excluded: ExcludedCheck[] = [];
  const unwrapBucket = (cmds: PlannedCommand[]): PlannedCommand[] =>
    cmds.flatMap((c) => {
      if (COVERAGE_REPORT.test(c.command.trim())) {
        excluded.push({
          what: `\`${c.command}\` (${c.source})`,
          why: "reports coverage, which the bot does not collect (it runs the tests without the coverage wrapper)",
        });
        return [];
      }
      const lines = c.command.split("\n");
      const wrappers: string[] = [];
      const unwrapped = lines.map((l) => {
        const u = unwrapCoverage(l.trim());
        if (!u) return l;
        wrappers.push(u.wrapper);
        return l.replace(l.trim(), u.command);
      });
      if (!wrappers.length) return [c];
      for (const w of wrappers) dropped.add(w);
      const note = coverageNote([...new Set(wrappers)].join("`, `"), c.command);
      return [{ ...c, command: unwrapped.join("\n"), note: c.note ? `${c.note}; ${note}` : note }];
    });
  plan.lint = unwrapBucket(plan.lint);
  plan.test = unwrapBucket(plan.test);
  if (dropped.size) {
    const packages = new Set([...dropped].map((w) => (w === "coverage" ? "coverage" : w)));
    plan.setup = plan.setup.filter((c) => {
      if (!installsOnly(c.command, packages)) return true;
      excluded.push({
        what: `\`${c.command}\` (${c.source})`,
        why: "installs only the coverage tool CI wraps its tests in; the bot runs the tests without it",
      });
      return false;
    });
  }
  plan.excluded.push(...excluded);
}
