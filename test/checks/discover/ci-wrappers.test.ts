import { discoverChecks } from "../../../src/checks/discover/discover-checks.js";
import { unwrapCoverage } from "../../../src/checks/discover/drop-coverage-wrappers.js";
import { renderCheckPlanText } from "../../../src/checks/discover/render-check-plan.js";
import { hatchScriptsOf, runnerFallbackOf, runnersInstalledBy } from "../../../src/checks/discover/runner-fallbacks.js";
import type { RepoReader } from "../../../src/checks/discover/types.js";

/** A repository read from memory: path → text. */
const reader = (files: Record<string, string>): RepoReader => ({
  list: async (dir) => [
    ...new Set(
      Object.keys(files)
        .filter((f) => (dir ? f.startsWith(`${dir}/`) : true))
        .map((f) => (dir ? f.slice(dir.length + 1) : f))
        .map((f) => (f.includes("/") ? `${f.split("/")[0]!}/` : f)),
    ),
  ],
  read: async (p) => files[p] ?? null,
});

// lukeed/dequal's ci.yml (at the replayed commits): a global nyc install and the tests run under it.
const DEQUAL = `name: CI
on: [push, pull_request]
jobs:
  test:
    name: Node.js v\${{ matrix.nodejs }}
    runs-on: ubuntu-latest
    strategy:
      matrix:
        nodejs: [8, 10, 12]
    steps:
    - uses: actions/checkout@master
      with:
        fetch-depth: 1
    - uses: actions/setup-node@v1
      with:
        node-version: \${{ matrix.nodejs }}
    - name: Install
      run: |
        npm install
        npm install -g nyc
    - name: Test w/ Coverage
      run: nyc --include=src npm test
    - name: Report
      if: matrix.nodejs >= 12
      run: |
        nyc report --reporter=text-lcov > coverage.lcov
        bash <(curl -s https://codecov.io/bash)
      env:
        CODECOV_TOKEN: \${{ secrets.CODECOV_TOKEN }}
`;

// andialbrecht/sqlparse's python-app.yml (8eb778c): hatch installed by pip, its scripts run the linter and the tests.
const SQLPARSE_HATCH = `name: Python application
on:
  pull_request:
    branches: [ master ]
jobs:
  test:
    name: Run tests on \${{ matrix.py }}
    runs-on: ubuntu-latest
    strategy:
      matrix:
        py:
          - "3.12"
          - "3.11"
    steps:
    - uses: actions/checkout@v4
    - name: Set up Python \${{ matrix.py }}
      uses: actions/setup-python@v5
      with:
        python-version: \${{ matrix.py }}
    - name: Install dependencies
      run: |
        python -m pip install --upgrade pip hatch
    - name: Lint with flake8
      run: hatch run flake8
    - name: Test with pytest and coverage
      run: hatch run cov
    - name: Publish to codecov
      uses: codecov/codecov-action@v4
`;
const SQLPARSE_PYPROJECT = `[project]
name = "sqlparse"

[tool.hatch.envs.default]
dependencies = [
    "coverage[toml]>=6.5",
    "pytest",
    "flake8",
]
[tool.hatch.envs.default.scripts]
unittest = "pytest {args:tests}"
test-cov = "coverage run -m pytest {args:tests}"
cov-report = [
    "- coverage combine",
    "coverage report",
]
cov = [
    "test-cov",
    "cov-report",
]
check = "flake8 sqlparse/"
test = ["check", "unittest"]

[tool.hatch.envs.types.scripts]
check = "mypy --install-types --non-interactive {args:sqlparse tests}"
`;

// sqlparse's python-app.yml (f66d12c): uv from setup-uv, the tests run by \`uv run\`.
const SQLPARSE_UV = `name: Python application
on: [pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
    - uses: actions/checkout@v4
    - name: Install uv
      uses: astral-sh/setup-uv@v6
    - name: Set up Python
      run: uv python install \${{ matrix.py }}
    - name: Test
      run: uv run --group dev pytest tests/
`;

// mahmoud/boltons's tests.yaml: uvx runs tox, whose testenv runs pytest.
const BOLTONS = `name: Tests
on: [pull_request]
jobs:
  tests:
    name: \${{ matrix.name }}
    runs-on: \${{ matrix.os }}
    strategy:
      fail-fast: false
      matrix:
        include:
          - { name: Linux, python: "3.14", os: ubuntu-latest, tox: py314 }
          - { name: "3.13", python: "3.13", os: ubuntu-latest, tox: py313 }
    steps:
      - uses: actions/checkout@9c091bb21b7c1c1d1991bb908d89e4e9dddfe3e0 # v7.0.0
      - uses: astral-sh/setup-uv@11f9893b081a58869d3b5fccaea48c9e9e46f990 # v8.3.2
      - uses: actions/setup-python@ece7cb06caefa5fff74198d8649806c4678c61a1 # v6.3.0
        with:
          python-version: \${{ matrix.python }}
      - run: uvx --with tox-uv tox -e \${{ matrix.tox }}
`;
const BOLTONS_TOX = `[tox]
envlist = py37,py38,py314
requires = tox-uv

[testenv]
changedir = .tox
dependency_groups = dev
commands = pytest --doctest-modules {env_site_packages_dir}/boltons {tox_root}/tests {posargs}
`;

describe("coverage wrappers are taken off CI's test commands", () => {
  it("dequal: `nyc --include=src npm test` runs as `npm test`, without the global nyc install, and says why", async () => {
    const plan = await discoverChecks(reader({ ".github/workflows/ci.yml": DEQUAL, "package.json": "{}" }));
    expect(plan.setup.map((c) => c.command)).toEqual(["npm install"]);
    expect(plan.test).toEqual([
      {
        command: "npm test",
        source: ".github/workflows/ci.yml job test, step 4",
        note: "CI runs `nyc --include=src npm test`, wrapping the tests in `nyc` for coverage; the bot runs them without it (it needs pass or fail, not coverage)",
      },
    ]);
    expect(plan.excluded).toContainEqual({
      what: "`npm install -g nyc` (.github/workflows/ci.yml job test, step 3, line 2)",
      why: "installs only the coverage tool CI wraps its tests in; the bot runs the tests without it",
    });
    expect(renderCheckPlanText(plan)).toContain("CI runs nyc --include=src npm test, wrapping the tests in nyc");
  });

  it.each([
    ["nyc --include=src npm test", "npm test"],
    ["npx nyc --reporter=lcov --reporter text mocha test", "npx mocha test"],
    ["c8 -r lcov npm test", "npm test"],
    ["CI=1 c8 --check-coverage --lines 90 node --test", "CI=1 node --test"],
    ["coverage run -m pytest tests -x", "python3 -m pytest tests -x"],
    ["python -m coverage run --source=src -m pytest", "python -m pytest"],
    ["uv run coverage run -p -m pytest", "uv run python -m pytest"],
    ["coverage run -m unittest discover", "python3 -m unittest discover"],
    ["istanbul cover _mocha -- -R spec", "_mocha -R spec"],
  ])("%s → %s", (line, command) => {
    expect(unwrapCoverage(line)?.command).toBe(command);
  });

  it.each([
    "c8 report",
    "nyc check-coverage --lines 90",
    "nyc --unknown-option 3 mocha",
    "nyc npm test | tee log",
    "npm test",
  ])("%s is left as it is", (line) => {
    expect(unwrapCoverage(line)).toBeNull();
  });
});

describe("a Python project runner's stand-in", () => {
  const pytestProject = { pytest: true, hatchScripts: {} };
  const plain = { pytest: false, hatchScripts: {} };

  it.each([
    ["uv run --group dev pytest tests/", "test", pytestProject, "uv", "python3 -m pytest tests/"],
    ["uv run pytest", "test", plain, "uv", "python3 -m pytest"],
    ["poetry run python -m pytest -x tests", "test", plain, "poetry", "python3 -m pytest -x tests"],
    ["uvx --with tox-uv tox -e py314", "test", pytestProject, "uv", "python3 -m pytest"],
    ["tox -e py311", "test", pytestProject, "tox", "python3 -m pytest"],
    ["nox -s tests", "test", pytestProject, "nox", "python3 -m pytest"],
    ["hatch test", "test", pytestProject, "hatch", "python3 -m pytest"],
    ["uv run ruff check .", "lint", plain, "uv", "python3 -m ruff check ."],
    ["hatch run flake8", "lint", plain, "hatch", "python3 -m flake8"],
    ["pdm run python -m unittest discover", "test", plain, "pdm", "python3 -m unittest discover"],
    ["pdm run test", "test", pytestProject, "pdm", "python3 -m pytest"],
  ] as const)("%s (%s) → %s: %s", (command, kind, project, runner, standIn) => {
    expect(runnerFallbackOf(command, kind, project)).toEqual({
      runner,
      command: standIn,
      module: standIn.split(" ")[2],
    });
  });

  it.each([
    ["uvx --with tox-uv tox -e py314", "test", plain],
    ["tox -e docs", "lint", pytestProject],
    ["uv run mypy src", "test", plain],
    ["uv run pytest", "lint", plain],
    ["pdm run test", "test", plain],
    ['uv run pytest "$ARGS"', "test", plain],
  ] as const)("%s (%s) has no stand-in", (command, kind, project) => {
    expect(runnerFallbackOf(command, kind, project)).toEqual({ runner: expect.any(String) });
  });

  it("is not planned for a command no runner runs", () => {
    expect(runnerFallbackOf("python3 -m pytest", "test", pytestProject)).toBeUndefined();
    expect(runnerFallbackOf("npm test", "test", pytestProject)).toBeUndefined();
  });

  it("reads hatch's default scripts, and nothing it cannot read simply", () => {
    expect(hatchScriptsOf(SQLPARSE_PYPROJECT)).toEqual({
      unittest: ["pytest {args:tests}"],
      "test-cov": ["coverage run -m pytest {args:tests}"],
      "cov-report": ["- coverage combine", "coverage report"],
      cov: ["test-cov", "cov-report"],
      check: ["flake8 sqlparse/"],
      test: ["check", "unittest"],
    });
    expect(hatchScriptsOf('[tool.hatch.envs.default.scripts]\nx = "a \\" b"\n')).toEqual({});
    expect(hatchScriptsOf("[project]\n")).toEqual({});
  });

  it.each([
    ["python -m pip install --upgrade pip hatch", ["hatch"]],
    ["pip install tox tox-uv", ["tox"]],
    ["pipx install poetry", ["poetry"]],
    ["pip install -e .[test]", []],
    ["pip install hatch pytest", []],
  ])("%s installs only the runners %j", (command, runners) => {
    expect(runnersInstalledBy(command)).toEqual(runners);
  });

  it("sqlparse (hatch): `hatch run cov` falls back to its script's pytest line, `hatch run flake8` to flake8; pip's hatch install is marked", async () => {
    const plan = await discoverChecks(
      reader({ ".github/workflows/python-app.yml": SQLPARSE_HATCH, "pyproject.toml": SQLPARSE_PYPROJECT }),
    );
    expect(plan.setup).toEqual([
      {
        command: "python -m pip install --upgrade pip hatch",
        source: ".github/workflows/python-app.yml job test, step 3",
        installsRunners: ["hatch"],
        // Where the sandbox keeps a tools shelf, hatch comes from it (one install per repository).
        tool: { name: "hatch", requirement: "hatch" },
      },
    ]);
    expect(plan.lint).toMatchObject([
      { command: "hatch run flake8", fallback: { runner: "hatch", command: "python3 -m flake8", module: "flake8" } },
    ]);
    expect(plan.test).toMatchObject([
      { command: "hatch run cov", fallback: { runner: "hatch", command: "python3 -m pytest tests", module: "pytest" } },
    ]);
    expect(renderCheckPlanText(plan)).toContain(
      "if hatch cannot be installed or run here: python3 -m pytest tests with the sandbox's Python",
    );
  });

  it("sqlparse (uv): the implied uv install is marked, the test falls back to `python3 -m pytest tests/`", async () => {
    const plan = await discoverChecks(
      reader({ ".github/workflows/python-app.yml": SQLPARSE_UV, "pyproject.toml": SQLPARSE_PYPROJECT }),
    );
    expect(plan.setup[0]).toMatchObject({ installsRunners: ["uv"] });
    expect(plan.test).toMatchObject([
      {
        command: 'PATH="$HOME/.local/bin:$PATH" uv run --group dev pytest tests/',
        fallback: { runner: "uv", command: "python3 -m pytest tests/", module: "pytest" },
      },
    ]);
  });

  it("boltons: `uvx --with tox-uv tox -e py314` falls back to plain `python3 -m pytest` (tox.ini's args use tox's own variables)", async () => {
    const plan = await discoverChecks(
      reader({
        ".github/workflows/tests.yaml": BOLTONS,
        "tox.ini": BOLTONS_TOX,
        "pyproject.toml": '[tool.pytest.ini_options]\ndoctest_optionflags = "NORMALIZE_WHITESPACE"\n',
      }),
    );
    expect(plan.setup).toMatchObject([{ installsRunners: ["uv"] }]);
    expect(plan.test).toMatchObject([
      {
        command: 'PATH="$HOME/.local/bin:$PATH" uvx --with tox-uv tox -e py314',
        fallback: { runner: "uv", command: "python3 -m pytest", module: "pytest" },
      },
    ]);
  });

  it("a tox project with no sign of pytest gets no stand-in", async () => {
    const plan = await discoverChecks(
      reader({ ".github/workflows/tests.yaml": BOLTONS, "tox.ini": "[testenv]\ncommands = python -m unittest\n" }),
    );
    expect(plan.test[0]!.fallback).toEqual({ runner: "uv" });
  });
});
