/**
 * How a discovered check plan compares with one written by hand from reading a repository's CI files: the tool each
 * test command runs (`tox` in `uv run --group dev tox run`, `make` in `cd build && make test`), and commands a check
 * must never be (publishing, deploying, uploading, root, piping a download into a shell). Used by the real-repository
 * corpus test (test/checks/discover/real-corpus.test.ts).
 */

/** Options of the wrappers below that take a value (`uv run --group dev pytest`: `dev` is not the tool). */
const VALUE_OPTIONS = new Set([
  "--group",
  "--only-group",
  "--with",
  "--python",
  "-p",
  "--extra",
  "--env-file",
  "--package",
  "--from",
  "-e",
  "--env",
  "-C",
  "-f",
]);

const WRAPPERS = [
  ["uv", "run"],
  ["uvx"],
  ["poetry", "run"],
  ["pdm", "run"],
  ["pipenv", "run"],
  ["rye", "run"],
  ["bundle", "exec"],
  ["npx"],
  ["pnpm", "exec"],
  ["yarn", "exec"],
  ["bunx"],
  ["env"],
  ["time"],
  ["exec"],
  ["xvfb-run"],
];

/** The tool each simple command of a (possibly multi-line) command runs, in order. */
export function toolsOf(command: string): string[] {
  const tools: string[] = [];
  for (const part of command.split(/\n|&&|\|\||;/)) {
    // Assignments in front (`MAVEN_ARGS='--batch-mode -q' mvn verify`) may hold quoted spaces.
    const simple = part
      .trim()
      .replace(/^!\s*/, "")
      .replace(/^(?:[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|\S*)\s+)+/, "");
    let words = simple.split(/\s+/).filter(Boolean);
    for (;;) {
      const before = words.length;
      const wrapper = WRAPPERS.find((w) => w.every((x, i) => words[i] === x));
      if (wrapper) {
        words = words.slice(wrapper.length);
        while (words[0]?.startsWith("-")) words = words.slice(VALUE_OPTIONS.has(words[0]) ? 2 : 1);
      }
      if (/^python[\d.]*$/.test(words[0] ?? "") && words[1] === "-m") words = words.slice(2);
      if (words.length === before) break;
    }
    const first = words[0];
    if (!first || ["cd", "export", "source", ".", "set", "echo", "mkdir", "pushd", "popd", "git"].includes(first))
      continue;
    tools.push(
      first
        .replace(/^pip3$/, "pip")
        .replace(/^py\.test$/, "pytest")
        .replace(/^python3(?:\.\d+)?$/, "python"),
    );
  }
  return tools;
}

/** The tool a hand-written test command is about: the last tool it runs (`cd tests && ./unittest.sh` → `./unittest.sh`). */
export function mainTool(command: string): string | undefined {
  return toolsOf(command).at(-1);
}

/** Why a command must never be a check, or null. */
export function dangerOf(command: string): string | null {
  const rules: [RegExp, string][] = [
    [/\$\{\{\s*secrets\.|\bsecrets\./, "uses a secret"],
    [
      /\b(?:npm|yarn|pnpm|cargo|poetry|flit|hatch|twine)\s+(?:run\s+)?publish\b|\bgem\s+push\b|\btwine\s+upload\b/,
      "publishes",
    ],
    [/\bsemantic-release\b|\bgh\s+release\b|\bgoreleaser\b/, "releases"],
    [/\bgit\s+push\b|\bdocker\s+(?:push|login)\b/, "pushes"],
    [/\bdeploy\b|\bkubectl\b|\bterraform\b|\bvercel\b|\bnetlify\b/, "deploys"],
    [/\bcodecov\b|\bcoveralls\b/, "uploads coverage"],
    [/(?:^|[;&|]\s*)sudo\s/, "needs root"],
    [/\bcurl\b[^|\n]*\|\s*(?:ba|z)?sh\b|\bwget\b[^|\n]*\|\s*(?:ba|z)?sh\b/, "pipes a download into a shell"],
    [/\$\{?GITHUB_(?:ENV|OUTPUT|PATH|STEP_SUMMARY)\b/, "writes the runner's own files"],
  ];
  for (const [re, why] of rules) if (re.test(command)) return why;
  return null;
}

export interface PlanScore {
  /** Hand-written test commands whose tool some discovered test command runs. */
  sameTool: number;
  expectedTests: number;
  /** Discovered test commands running none of the expected tools. */
  foreign: string[];
  /** Discovered commands (any bucket) that must never run, with why. */
  dangerous: string[];
  missed: string[];
}

/** Compare a discovered plan's commands with the hand-written ones. */
export function scorePlan(
  discovered: { setup: string[]; lint: string[]; test: string[] },
  expected: { test: string[] },
): PlanScore {
  const found = new Set(discovered.test.flatMap(toolsOf));
  const wanted = new Set(expected.test.map(mainTool).filter((t): t is string => !!t));
  const missed = expected.test.filter((c) => !found.has(mainTool(c) ?? ""));
  const foreign = discovered.test.filter((c) => !toolsOf(c).some((t) => wanted.has(t)));
  const dangerous = [...discovered.setup, ...discovered.lint, ...discovered.test]
    .map((c) => [c, dangerOf(c)] as const)
    .filter(([, why]) => why !== null)
    .map(([c, why]) => `${c} (${why})`);
  return {
    sameTool: expected.test.length - missed.length,
    expectedTests: expected.test.length,
    foreign,
    dangerous,
    missed,
  };
}
