import { unwrapCoverage } from "./drop-coverage-wrappers.js";
import type { CheckPlan, PlannedCommand, RepoReader, RunnerFallback } from "./types.js";

/** Python project runners: they make an environment from the project's lock file and run a command in it. */
const RUNNERS = new Set(["uv", "uvx", "tox", "nox", "hatch", "pdm", "poetry", "pipenv", "rye"]);

/** Linters a runner may call whose module runs them too (`python3 -m flake8`). */
const LINTERS = new Set([
  "flake8",
  "ruff",
  "mypy",
  "pylint",
  "black",
  "isort",
  "pyflakes",
  "pycodestyle",
  "pydocstyle",
  "bandit",
]);

/** What a setup line may install and still count as installing runners only. */
const RUNNER_PACKAGES = new Set([
  ...RUNNERS,
  "pip",
  "setuptools",
  "wheel",
  "virtualenv",
  "tox-uv",
  "tox-gh-actions",
  "nox-uv",
  "hatch-vcs",
]);

/** What the checkout says about its Python project (read from the default branch, like the workflows). */
export interface PythonProject {
  /** Its tests run under pytest: a pytest config or pytest named among its dependencies or test commands. */
  pytest: boolean;
  /** Hatch's default environment scripts (`cov = ["test-cov", "cov-report"]`), when they could be read simply. */
  hatchScripts: Record<string, string[]>;
}

/** Options of `uv run`, `uvx`, `pdm run`, … that take a value as the next word. */
const VALUE_OPTIONS =
  /^(?:--group|--only-group|--with|--with-editable|--with-requirements|--python|-p|--extra|--env-file|--package|--from|--env|-e|--spec|--directory|--project|--index|--index-url|--extra-index-url)$/;

/** A command's runner and the words it runs, past the runner's options; null when it is not run by one. */
function runnerOf(words: string[]): { runner: string; rest: string[] } | null {
  const head = words[0] ?? "";
  if (!RUNNERS.has(head)) return null;
  const runner = head === "uvx" ? "uv" : head;
  let i = 1;
  if (["uv", "poetry", "pdm", "pipenv", "rye", "hatch"].includes(head)) {
    if (words[1] === "tool" && words[2] === "run" && head === "uv") i = 3;
    else if (words[1] === "run") i = 2;
    else if (head === "hatch" && words[1] === "test") return { runner, rest: ["pytest"] };
    else return { runner, rest: [] };
  }
  if (head === "tox" || head === "nox") return { runner, rest: words };
  while (i < words.length && words[i]!.startsWith("-")) i += VALUE_OPTIONS.test(words[i]!) ? 2 : 1;
  return { runner, rest: words.slice(i) };
}

/** `pytest ARGS`, `python -m pytest ARGS`, `python -m unittest ARGS`, a linter: the module and its arguments. */
function moduleOf(words: string[]): { module: string; args: string[] } | null {
  let w = words;
  if (/^python(?:3(?:\.\d+)?)?$/.test(w[0] ?? "") && w[1] === "-m") w = w.slice(2);
  const head = w[0] ?? "";
  if (head === "pytest" || head === "py.test") return { module: "pytest", args: w.slice(1) };
  if (head === "unittest" && words[0] !== "unittest") return { module: "unittest", args: w.slice(1) };
  if (LINTERS.has(head)) return { module: head, args: w.slice(1) };
  return null;
}

/** A hatch script's command lines, scripts it names expanded (a few levels, no cycles). */
function hatchLines(name: string, args: string[], scripts: Record<string, string[]>, depth = 0): string[] {
  const lines = scripts[name];
  if (!lines || depth > 4) return [];
  return lines.flatMap((line) => {
    const words = line.trim().split(/\s+/);
    if (scripts[words[0]!] && words[0] !== name) return hatchLines(words[0]!, words.slice(1), scripts, depth + 1);
    // `{args:tests}`: the arguments given, else the default.
    return [
      line.replace(/\{args(?::([^{}]*))?\}/g, (_, fallback: string | undefined) =>
        args.length ? args.join(" ") : (fallback ?? ""),
      ),
    ];
  });
}

/** What a plain argument looks like: moved into the stand-in command as written. */
const PLAIN_ARG = /^[\w./:@%+,=~-]+$/;

/**
 * What can stand in for a lint or test command run by a Python project runner, with the sandbox's own Python
 * (pure): `uv run --group dev pytest tests/` → `python3 -m pytest tests/`; `uvx --with tox-uv tox -e py314` or
 * `hatch test` → `python3 -m pytest` when the project uses pytest; `hatch run cov` → the pytest line of its hatch
 * script; `hatch run flake8` → `python3 -m flake8`. Undefined when the command is not run by a runner; a fallback
 * without a command when nothing simple stands in (`tox -e docs`).
 */
export function runnerFallbackOf(
  command: string,
  kind: "lint" | "test",
  project: PythonProject,
): RunnerFallback | undefined {
  if (command.includes("\n")) return undefined;
  const line = command.trim().replace(/^(?:[A-Za-z_]\w*=(?:'[^']*'|"[^"]*"|\S*)\s+)+/, "");
  const words = line.split(/\s+/);
  const head = /^python3?(?:\.\d+)?$/.test(words[0] ?? "") && words[1] === "-m" ? words.slice(2) : words;
  const found = runnerOf(head);
  if (!found) return undefined;
  const { runner } = found;
  let rest = found.rest;
  const none: RunnerFallback = { runner };
  if (runner === "hatch" && rest.length && project.hatchScripts[rest[0]!]) {
    const pytestLine = hatchLines(rest[0]!, rest.slice(1), project.hatchScripts)
      .map((l) => unwrapCoverage(l.trim())?.command ?? l.trim())
      .map((l) => l.split(/\s+/))
      .find((w) => moduleOf(w)?.module === "pytest");
    if (pytestLine) rest = pytestLine;
    else rest = kind === "test" && project.pytest ? ["pytest"] : [];
  }
  // `pdm run test`: a script of pdm's own table; the project's tests, when they run under pytest.
  if (runner === "pdm" && rest.length === 1 && /^[\w-]+$/.test(rest[0]!) && !moduleOf(rest) && !RUNNERS.has(rest[0]!))
    rest = kind === "test" && project.pytest ? ["pytest"] : [];
  // A runner in a runner (`uv run tox`, `uvx --with tox-uv tox -e py314`, `poetry run nox`): the tests it runs.
  const inner = rest[0] && RUNNERS.has(rest[0]) ? runnerOf(rest) : null;
  if (inner) rest = kind === "test" && project.pytest && inner.rest.every((w) => w !== "-l") ? ["pytest"] : [];
  const unwrapped = rest.length ? (unwrapCoverage(rest.join(" "))?.command.split(/\s+/) ?? rest) : rest;
  const mod = moduleOf(unwrapped);
  if (!mod) return none;
  // A linter stands in only for a lint command, the tests only for a test command.
  if ((mod.module === "pytest" || mod.module === "unittest") !== (kind === "test")) return none;
  if (!mod.args.every((a) => PLAIN_ARG.test(a))) return none;
  return { runner, command: ["python3", "-m", mod.module, ...mod.args].join(" "), module: mod.module };
}

/** A setup line that installs only Python project runners (`python -m pip install --upgrade pip hatch`): which. */
export function runnersInstalledBy(command: string): string[] {
  const m =
    /^(?:python3?(?:\.\d+)?\s+-m\s+)?(?:pip3?\s+install|pipx\s+install)((?:\s+(?:-U|--upgrade|--user|-q|--quiet|--pre))*)\s+([^\n;&|]+)$/.exec(
      command.trim(),
    );
  if (!m) return [];
  const pkgs = m[2]!
    .trim()
    .split(/\s+/)
    .map((p) => p.replace(/^['"]|['"]$/g, "").replace(/(?:\[.*|[=<>~!].*)$/, ""));
  if (!pkgs.length || !pkgs.every((p) => RUNNER_PACKAGES.has(p))) return [];
  return pkgs.filter((p) => RUNNERS.has(p)).map((p) => (p === "uvx" ? "uv" : p));
}

/**
 * The `[tool.hatch.envs.default.scripts]` table of a pyproject.toml, read only when it is simple: `name = "line"`
 * and `name = ["line", …]` entries of double-quoted strings (what projects write); anything else leaves it empty.
 */
export function hatchScriptsOf(pyproject: string): Record<string, string[]> {
  const table = /^\[tool\.hatch\.envs\.default\.scripts\]\s*$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(pyproject)?.[1];
  if (!table) return {};
  const scripts: Record<string, string[]> = {};
  const entry = /^([\w-]+)\s*=\s*("(?:[^"\\\n]|\\.)*"|\[[^\]]*\])/gm;
  for (const m of table.matchAll(entry)) {
    const strings = [...m[2]!.matchAll(/"((?:[^"\\\n]|\\.)*)"/g)].map((s) => s[1]!);
    if (strings.some((s) => s.includes("\\"))) return {};
    scripts[m[1]!] = strings;
  }
  return scripts;
}

/** Whether the checkout's files say its tests run under pytest. */
async function usesPytest(reader: RepoReader): Promise<boolean> {
  const root = await reader.list("");
  if (root.includes("pytest.ini") || root.includes("conftest.py")) return true;
  for (const file of ["pyproject.toml", "setup.cfg", "tox.ini", "noxfile.py", "setup.py", "requirements-dev.txt"]) {
    if (!root.includes(file)) continue;
    const text = (await reader.read(file)) ?? "";
    if (/\[tool\.pytest|\[tool:pytest\]|^\[pytest\]|\bpytest\b/m.test(text)) return true;
  }
  return false;
}

/** What discovery reads of the checkout for the fallbacks. */
export async function readPythonProject(reader: RepoReader): Promise<PythonProject> {
  const root = await reader.list("");
  const pyproject = root.includes("pyproject.toml") ? ((await reader.read("pyproject.toml")) ?? "") : "";
  return { pytest: await usesPytest(reader), hatchScripts: hatchScriptsOf(pyproject) };
}

/**
 * Each lint and test command of the plan run by a Python project runner gets what stands in for it when that runner
 * cannot be installed or run here ({@link runnerFallbackOf}); each setup line that only installs runners, or runs
 * one (`uv sync`), says which, so a run can go on past its failure to the stand-ins.
 */
export async function planRunnerFallbacks(plan: CheckPlan, reader: RepoReader): Promise<void> {
  const all = [...plan.lint, ...plan.test];
  if (!all.some((c) => runnerFallbackOf(c.command, "test", { pytest: false, hatchScripts: {} }))) return;
  const project = await readPythonProject(reader);
  const withFallback =
    (kind: "lint" | "test") =>
    (c: PlannedCommand): PlannedCommand => {
      const fallback = runnerFallbackOf(c.command, kind, project);
      return fallback ? { ...c, fallback } : c;
    };
  plan.lint = plan.lint.map(withFallback("lint"));
  plan.test = plan.test.map(withFallback("test"));
  plan.setup = plan.setup.map((c) => {
    const installs = runnersInstalledBy(c.command);
    if (installs.length) return { ...c, installsRunners: installs };
    const runner = runnerOf(c.command.trim().split(/\s+/))?.runner;
    return runner ? { ...c, fallback: { runner } } : c;
  });
}
