/**
 * What a repository command is for: installing, static checks, tests; only printing (`echo`, `node --version`,
 * `npm config set`: never a check); or a reason it must never run here.
 */
export type CommandClass =
  { kind: "setup" | "lint" | "test" | "print" } | { kind: "exclude"; why: string } | { kind: "unknown" };

/** Why a command that only prints is left out (one reason, so the status groups them on one line). */
export const PRINT_ONLY = "only prints or configures the CI runner (not a check)";

const EXCLUDE: [RegExp, string][] = [
  [/\bsecrets\./, "needs secrets"],
  [
    /\b(?:npm|yarn|pnpm|bun)\s+(?:run\s+)?publish\b|\bchangeset\s+publish\b|\bsemantic-release\b|\bcargo\s+publish\b|\bpoetry\s+publish\b|\bflit\s+publish\b|\bhatch\s+publish\b|\bgem\s+push\b|\bmvnw?\b.*\bdeploy\b|\bgradlew?\b.*\bpublish/i,
    "publishes a package",
  ],
  [/\btwine\s+upload\b|\bcodecov\b|\bcoveralls\b|\bupload\b/i, "uploads outside the repository"],
  [/\bgh\s+release\b|\brelease-it\b|\bgoreleaser\b/i, "makes a release"],
  [
    /\bdocker\s+(?:push|login)\b|\bgit\s+push\b|\bdeploy\b|\b(?:aws|gcloud|az|kubectl|helm|terraform|flyctl|vercel|netlify|firebase|heroku|wrangler)\s/i,
    "deploys",
  ],
  [/(?:^|[;&|]\s*)sudo\s/, "needs root (sudo)"],
  [
    /\b(?:curl|wget)\b[^|\n]*\|\s*(?:sudo\s+)?(?:ba|z)?sh\b|\bbash\s+<\(\s*curl\b/,
    "runs a script downloaded from the network",
  ],
  [/(?:^|[;&|]\s*)gh\s/, "uses the GitHub CLI (needs GitHub credentials)"],
  [/(?<![&>])&\s*$/, "starts a background process (a server the next step talks to)"],
  [/\$\{?(?:GITHUB|RUNNER)_[A-Z_]+/, "needs the GitHub Actions runner's own environment"],
  [
    /\b(?:apt-get|apt|yum|dnf|apk|brew|choco|snap)\s+(?:-\S+\s+)*(?:install|add|update|upgrade)\b/i,
    "installs system packages (give the runner or image these tools instead)",
  ],
  [/\bdocker(?:-compose)?\s|\bpodman\s/i, "needs a container engine"],
];

const SETUP =
  /^(?:(?:npm|pnpm|bun)\s+(?:ci|install|i)\b|yarn(?:\s+install\b|\s*$|\s+--(?:frozen-lockfile|immutable))|corepack\s+(?:enable|prepare)\b|npm\s+i(?:nstall)?\s+-g\b|(?:python3?\s+-m\s+)?pip3?\s+install\b|poetry\s+install\b|pipenv\s+(?:install|sync)\b|uv\s+(?:sync|pip\s+install|venv|tool\s+install)\b|pdm\s+(?:install|sync)\b|hatch\s+env\s+create\b|conda\s+(?:install|env)\b|bundle\s+install\b|go\s+(?:mod\s+download|install|get)\b|cargo\s+(?:fetch|install)\b|rustup\s|composer\s+install\b|dotnet\s+restore\b|git\s+submodule\b|pre-commit\s+install\b|npx\s+playwright\s+install\b|mvnw?\s+.*dependency:|python3?\s+-m\s+venv\b|venv\s|virtualenv\b|(?:source|\.)\s+\S*activate\b|pipx\s+install\b|uv\s+tool\s+install\b|gem\s+install\b|cpanm\b|python3?\s+install-\S+\.py\b|pdm\s+self\s+add\b|\.\/configure\b|\.\/autogen\.sh\b|autoreconf\b|perl\s+(?:-\S+\s+)*Makefile\.PL\b|cmake\s+(?:-S|-B|\.\.|-D|-G)|meson\s+setup\b|make(?:\s+(?:-j\s*\S*|-s|\S+=\S+))*\s*$|mkdir\s)/i;

const LINT =
  /^(?:(?:npx\s+|pnpm\s+(?:exec\s+|dlx\s+)?|yarn\s+(?:exec\s+)?|bunx\s+)?(?:eslint|prettier\s+.*(?:--check|-c\b|--list-different)|tsc|vue-tsc|biome|stylelint|markdownlint\S*|oxlint|xo|standard)\b|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:lint|typecheck|type-check|types|check-types|check|format:check|fmt:check|build|compile|tsc)(?::\S+)?\b|(?:ruff|flake8|pylint|mypy|pyright|black\s+.*--check|isort\s+.*(?:--check|-c\b)|pycodestyle|pydocstyle|bandit|codespell|yamllint|shellcheck|rubocop|golangci-lint|staticcheck|gofmt|hadolint|actionlint|clang-format|cppcheck|ktlint|detekt|swiftlint)\b|go\s+(?:vet|build)\b|cargo\s+(?:clippy|check|build|fmt|doc)\b|cargo\s+bench\s+(?:\S+\s+)*--no-run\b|(?:make|just|task)\s+(?:\S+=\S+\s+)*(?:lint|fmt|format|check-format|style|vet|typecheck|type-check|types|build|compile)\b|tox\s+.*-e\s*(?:lint|flake8|mypy|type|typing|types|pre-commit|style|pylint|ruff|format|docs)\b(?!-)|nox\s+.*-s\s*(?:lint|mypy|type|typing|types|pre-commit|style|pylint|ruff|format|docs)\b|pre-commit\s+run\b|(?:\.\/)?mvnw?\s+.*(?:checkstyle|spotless:check|compile)\b|hatch\s+(?:fmt\b|run\s+\S*(?:lint|types?|typing|style|fmt|format)\S*)|tox\s+(?:r(?:un)?\s+)?.*-f\s*(?:lint|type|typing|types|style|format)\b|cmake\s+--build\b|meson\s+compile\b)/i;

const TEST =
  /^(?:(?:npx\s+|pnpm\s+(?:exec\s+)?|yarn\s+(?:exec\s+)?|bunx\s+)?(?:jest|vitest|mocha|ava|tap|playwright\s+test|cypress\s+run|karma)\b|(?:npm|pnpm|yarn|bun)\s+(?:run(?:-script)?\s+)?(?:test|tests|t|coverage|e2e|spec)(?:[:-]\S+)?\b|bun\s+test\b|deno\s+test\b|(?:python3?\s+-m\s+)?(?:pytest|py\.test|unittest|nose2?|coverage\s+run|tox|nox)\b|python3?\s+(?:\S*\/)?(?:manage\.py\s+test|setup\.py\s+test|run_?tests?\.py|tests?\.py)\b|tox\b|nox\b|go\s+test\b|gotestsum\b|cargo\s+(?:test|nextest)\b|(?:make|just|task)\s+(?:\S+=\S+\s+)*(?:test|tests|check|unit|integration|spec|ci|coverage)\b|(?:\.\/)?mvnw?\s+.*(?:test|verify|package|install)\b|(?:\.\/)?gradlew?\s+.*(?:test|check|build)\b|(?:bundle\s+exec\s+)?(?:rspec|rake(?:\s+(?:test|spec))?)\b|ctest\b|dotnet\s+test\b|(?:vendor\/bin\/)?phpunit\b|bats\b|mix\s+test\b|swift\s+test\b|zig\s+build\s+test\b|hatch\s+test\b|prove\b|meson\s+test\b|(?:make|just|task)\s+(?:-\S+\s+|\S+=\S+\s+)*\S*(?:test|check)\S*(?:\s|$)|make\s+-C\s+\S*tests?\b|(?:\.\/|\S*\/)?\S*tests?\.(?:sh|py)(?:\s|$)|(?:\.\/)?(?:\S*\/)?(?:run[-_]?)?tests?(?:\.sh|\.py)?\s*(?:$|\s))/i;

/** Strip what only wraps the tool: env assignments, `cd x &&`, `poetry run`, `uv run`, `time`, … */
function core(command: string): string {
  let c = command.trim();
  for (;;) {
    const before = c;
    c = c
      .replace(/^(?:[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|\S*)\s+)+/, "")
      .replace(/^cd\s+\S+\s*&&\s*/, "")
      .replace(/^(?:time|env|exec|xvfb-run(?:\s+-a)?)\s+/, "")
      .replace(/^!\s+/, "")
      .replace(/^cd\s+\S+\s*;\s*/, "")
      // `uv run --locked --group dev tox run`: the wrapper's own options, some with a value, come before the tool.
      .replace(
        /^(?:(?:poetry|uv|pipenv|pdm|rye)\s+run|uvx|uv\s+tool\s+run|pipx\s+run)\s+(?:(?:--(?:group|only-group|with|python|extra|env-file|package|from|env|spec)|-[ep])[=\s]\S+\s+|--?[\w-]+\s+)*/,
        "",
      )
      .replace(/^bundle\s+exec\s+(?=rspec|rake|rubocop)/, "bundle exec ")
      // `python -m pyright`, `python -m nox`: the module is the tool.
      .replace(/^python3?(?:\.\d+)?\s+-m\s+(?=[\w.]+)/, "");
    if (c === before) return c;
  }
}

/** Commands that only print or configure the runner: they check nothing. */
const PRINT =
  /^(?:echo|printf|pwd|ls|which|type|whoami|uname|date|df|free|nproc|printenv|env|true|:|ulimit|hostname|id|sleep)\b(?!.*>)|^cat\s+[^|>]+$|^(?:node|npm|npx|yarn|pnpm|bun|deno|python3?|pip3?|go|cargo|rustc|ruby|gem|bundle|java|javac|mvn|gradle|perl|php|composer|dotnet|uv|poetry|pdm|hatch|tox|nox|make|cmake|gcc|clang|g\+\+)\s+(?:--version|-v|-V|version)\s*$|^[^|;&]*\s--version\s*$|^(?:npm|yarn|pnpm)\s+config\s+set\b|^git\s+(?:config|log|status|--version|rev-parse)\b|^(?:pip3?|python3?\s+-m\s+pip)\s+(?:list|freeze|show|--version)\b|^(?:npm|pnpm)\s+(?:ls|list|--version)\b|^go\s+(?:env|version)\b|^(?:rustc|cargo|rustup)\s+(?:-V|--version|show)\b|^file\s/;

/**
 * Classify one shell command, with the step's `name:` as a hint when the command itself says nothing. A script kept
 * whole (it has control flow or changes directory) is what its strongest line is: a test when any line tests.
 */
export function classifyCommand(command: string, stepName?: string): CommandClass {
  for (const [re, why] of EXCLUDE) if (re.test(command)) return { kind: "exclude", why };
  const lines = command.split("\n").filter((l) => l.trim());
  if (lines.length > 1) {
    const kinds = new Set(lines.map((l) => classifyLine(l).kind));
    for (const kind of ["test", "lint", "setup"] as const) if (kinds.has(kind)) return { kind };
    if ([...kinds].every((k) => k === "print")) return { kind: "print" };
  } else {
    const single = classifyLine(command);
    if (single.kind !== "unknown") return single;
  }
  return fromStepName(stepName);
}

/** Whether a command (left out for another reason: a secret, an expression) is a lint or test by its own words. */
export function looksLikeCheck(command: string): boolean {
  return command.split("\n").some((l) => ["lint", "test"].includes(classifyLine(l).kind));
}

function classifyLine(command: string): CommandClass {
  const c = core(command);
  if (PRINT.test(c)) return { kind: "print" };
  if (SETUP.test(c)) return { kind: "setup" };
  // Lint first: its patterns are the narrower ones (`nox -s lint`, `make lint`, `tox -e mypy` before `tox`, `nox`, `make`).
  if (LINT.test(c)) return { kind: "lint" };
  if (TEST.test(c)) return { kind: "test" };
  return { kind: "unknown" };
}

function fromStepName(stepName: string | undefined): CommandClass {
  const name = stepName ?? "";
  if (/\btests?\b|\bspec\b|pytest|unittest/i.test(name)) return { kind: "test" };
  if (/\blint|format|style|typecheck|type check|types\b|static analysis|\bvet\b/i.test(name)) return { kind: "lint" };
  if (/\binstall|dependenc|deps\b|bootstrap|prepare|set ?up\b/i.test(name)) return { kind: "setup" };
  return { kind: "unknown" };
}

/**
 * A `run:` script as separate commands when it is a plain list of lines (comments and blank lines dropped,
 * `\` continuations joined); one command when it uses shell control flow, a heredoc or a function, whose lines
 * only make sense together.
 */
export function splitScript(script: string): string[] {
  const joined = script.replace(/\\\r?\n\s*/g, "");
  const lines = joined
    .split(/\r?\n/)
    .map((l) => l.trim())
    // `set -e` and the like only change how a script stops; each command is run and judged on its own.
    .filter((l) => l && !l.startsWith("#") && !/^set\s+[-+][a-z]+(?:\s+pipefail)?$/.test(l));
  // A line that changes what the next ones see (`cd tests`, `export X=1`, `source .venv/bin/activate`, `X=1`) keeps
  // the script whole too: run apart, `./unittest.sh` would run in the wrong folder.
  const compound = lines.some(
    (l) =>
      /^(?:if|then|else|elif|fi|for|while|until|do|done|case|esac|function)\b|[{}]\s*$|<<|\(\)\s*\{?$/.test(l) ||
      (lines.length > 1 &&
        /^(?:cd|pushd|popd|export|source|\.|ulimit|umask|shopt|alias)(?:\s|$)|^[A-Za-z_]\w*=(?:"[^"]*"|'[^']*'|\S*)$/.test(
          l,
        )),
  );
  if (compound) return lines.length ? [lines.join("\n")] : [];
  return lines;
}
