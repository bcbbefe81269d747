import { interpolate, knownFalse } from "../../../src/checks/discover/evaluate-expression.js";
import { classifyCommand, splitScript } from "../../../src/checks/discover/classify-command.js";
import { pickMatrix } from "../../../src/checks/discover/pick-matrix.js";

const ctx = {
  matrix: { "python-version": "3.12", os: "ubuntu-latest", node: 20 },
  env: { MODE: "ci" },
  inputs: { target: "all" },
  runner: { os: "Linux" },
};

describe("interpolate", () => {
  it.each([
    ["pytest --py ${{ matrix.python-version }}", "pytest --py 3.12"],
    ["${{ format('reports/{0}-{1}.xml', matrix.os, matrix.node) }}", "reports/ubuntu-latest-20.xml"],
    ["make ${{ inputs.target }} MODE=${{ env.MODE }}", "make all MODE=ci"],
    ["${{ matrix.missing || 'fallback' }}", "fallback"],
    ["${{ matrix['python-version'] }}", "3.12"],
    ["${{ runner.os == 'Linux' && 'yes' || 'no' }}", "yes"],
  ])("%s → %s", (text, out) => {
    expect(interpolate(text, ctx)).toEqual({ ok: true, text: out });
  });

  it.each(["${{ secrets.TOKEN }}", "${{ steps.x.outputs.y }}", "${{ hashFiles('**/lock') }}", "${{ matrix.os == }}"])(
    "%s stays unresolved",
    (text) => {
      expect(interpolate(`run ${text}`, ctx)).toEqual({ ok: false, unresolved: text });
    },
  );

  it("knows a condition false only when it can evaluate it", () => {
    expect(knownFalse("matrix.os == 'windows-latest'", ctx)).toBe(true);
    expect(knownFalse("${{ matrix.os == 'ubuntu-latest' }}", ctx)).toBe(false);
    expect(knownFalse("github.event_name == 'push'", ctx)).toBe(false);
  });
});

describe("classifyCommand", () => {
  it.each([
    ["npm ci", "setup"],
    ["python -m pip install -r requirements.txt", "setup"],
    ["poetry run pytest -x", "test"],
    ["CI=1 npm test", "test"],
    ["make lint", "lint"],
    ["nox -s lint", "lint"],
    ["tox -e py312", "test"],
    ["just test", "test"],
    ["go vet ./...", "lint"],
    ["cargo test --all-features", "test"],
    // Builds the benchmarks without running them: a compile check of code no test builds (CI runs it on nightly).
    ["cargo bench --no-run", "lint"],
    ["cargo bench --all-features --no-run", "lint"],
    ["cargo bench", "unknown"],
    ["./gradlew check", "test"],
    ["npm publish", "exclude"],
    ["twine upload dist/*", "exclude"],
    ["sudo apt-get install -y libpq-dev", "exclude"],
    ["docker compose up -d", "exclude"],
    ["echo hello", "print"],
    ['echo "Node.js version: $(node -v)"\necho "NPM version: $(npm -v)"', "print"],
    ["npm config set loglevel error", "print"],
    ["node --version", "print"],
    ["perl -V", "print"],
    ["python3 -m unittest -v", "test"],
    ['echo "API_URL=x" > .env', "unknown"],
    ["./scripts/generate.sh", "unknown"],
    ["curl -o- -L https://yarnpkg.com/install.sh | bash", "exclude"],
    ["gh workflow run deploy-website.yml -R fastify/website", "exclude"],
    ["uv run --locked --no-default-groups --group dev tox run", "test"],
    ["uv run --locked --no-default-groups --group dev tox run -e typing", "lint"],
    ["uv run --only-group tox tox run -f lint", "lint"],
    ["uvx --with tox-uv tox -e py314", "test"],
    ["hatch test --python 3.12 --cover-quiet", "test"],
    ["hatch fmt --check", "lint"],
    ["hatch run types:check", "lint"],
    ["RICHGO_FORCE_COLOR=1 PATH=$HOME/go/bin/:$PATH make richtest", "test"],
    ["make check VERBOSE=yes", "test"],
    ['make -C tests EXTRA_CFLAGS="-W -Wall"', "test"],
    ["make -j2", "setup"],
    ["prove -b xt", "test"],
    ["./configure --disable-docs", "setup"],
    ["cd tests\n./unittest.sh\ncd ../examples\n./cpptest.sh", "test"],
  ])("%s → %s", (command, kind) => {
    expect(classifyCommand(command).kind).toBe(kind);
  });

  it("uses the step name when the command says nothing", () => {
    expect(classifyCommand("./ci/go.sh", "Run unit tests").kind).toBe("test");
  });
});

describe("splitScript", () => {
  it("splits a plain list, joins continuations, drops comments and set -e", () => {
    expect(splitScript("set -euo pipefail\n# lint\nruff check .\npytest \\\n  -q\n")).toEqual([
      "ruff check .",
      "pytest -q",
    ]);
  });
  it("keeps a script that changes directory or environment whole (its lines depend on each other)", () => {
    expect(splitScript("cd tests\n./unittest.sh\n")).toEqual(["cd tests\n./unittest.sh"]);
    expect(splitScript("source $VENV\npytest tests -v\n")).toEqual(["source $VENV\npytest tests -v"]);
    expect(splitScript("export GOBIN=$HOME/go/bin\ngo install x@latest\n")).toHaveLength(1);
    expect(splitScript("npm ci\nnpm test\n")).toEqual(["npm ci", "npm test"]);
  });
  it("keeps a script with control flow whole", () => {
    expect(splitScript("if [ -f x ]; then\n  make test\nfi\n")).toEqual(["if [ -f x ]; then\nmake test\nfi"]);
  });
});

describe("pickMatrix", () => {
  it("takes the first Linux combination, honouring exclude and include", () => {
    const m = {
      os: ["windows-latest", "ubuntu-latest"],
      py: ["3.11", "3.12"],
      exclude: [{ os: "ubuntu-latest", py: "3.11" }],
      include: [{ os: "ubuntu-latest", py: "3.12", extra: "x" }],
    };
    expect(pickMatrix(m, {})).toEqual({ ok: true, values: { os: "ubuntu-latest", py: "3.12", extra: "x" }, of: 3 });
  });
  it("uses include-only matrices", () => {
    expect(pickMatrix({ include: [{ name: "a", cmd: "make a" }] }, {})).toMatchObject({
      ok: true,
      values: { name: "a", cmd: "make a" },
    });
  });
  it("refuses a matrix made by an expression", () => {
    expect(pickMatrix("${{ fromJSON(needs.setup.outputs.matrix) }}", {})).toMatchObject({ ok: false });
  });
});

describe("less noise in the plan", () => {
  const reader = (files: Record<string, string>) => ({
    list: async (dir: string) => [
      ...new Set(
        Object.keys(files)
          .filter((f) => (dir ? f.startsWith(`${dir}/`) : true))
          .map((f) => (dir ? f.slice(dir.length + 1) : f))
          .map((f) => (f.includes("/") ? `${f.split("/")[0]!}/` : f)),
      ),
    ],
    read: async (path: string) => files[path] ?? null,
  });
  // The shape of expressjs/express's ci.yml: a lint job and a test job each installing, prints between.
  const express = [
    "on: [push, pull_request]",
    "jobs:",
    "  lint:",
    "    runs-on: ubuntu-latest",
    "    steps:",
    "      - uses: actions/checkout@v4",
    "      - run: npm install --ignore-scripts --include=dev",
    "      - run: npm run lint",
    "  test:",
    "    runs-on: ubuntu-latest",
    "    steps:",
    "      - uses: actions/checkout@v4",
    "      - run: npm config set loglevel error",
    "      - run: npm install",
    "      - run: |",
    '          echo "Node.js version: $(node -v)"',
    '          echo "NPM version: $(npm -v)"',
    "      - run: npm run test-ci",
    "      - uses: actions/upload-artifact@v4",
    "  coverage:",
    "    runs-on: ubuntu-latest",
    "    steps:",
    "      - run: sudo apt-get -y install lcov",
    "      - uses: actions/download-artifact@v4",
    "      - uses: coverallsapp/github-action@v2",
    "",
  ].join("\n");

  it("installs once, plans no print-only step, lists what was left out one line per reason", async () => {
    const { discoverChecks } = await import("../../../src/checks/discover/discover-checks.js");
    const { renderCheckPlanMarkdown } = await import("../../../src/checks/discover/render-check-plan.js");
    const files = { ".github/workflows/ci.yml": express, ".github/workflows/legacy.yml": express };
    const plan = await discoverChecks(reader(files));
    expect(plan.setup.map((c) => c.command)).toEqual(["npm install"]);
    expect(plan.lint.map((c) => c.command)).toEqual(["npm run lint"]);
    expect(plan.test.map((c) => c.command)).toEqual(["npm run test-ci"]);
    const leftOut = renderCheckPlanMarkdown(plan).split("**left out**\n")[1]!.split("\n");
    // The coverage jobs check nothing and nothing in them would: they are not worth a line.
    expect(leftOut).toHaveLength(1);
    expect(leftOut[0]).toMatch(
      /^- `npm config set loglevel error` .*`echo "NPM version: \$\(npm -v\)"`.* — only prints/,
    );
  });
});

describe("tools a setup action gave the CI runner", () => {
  const reader = (files: Record<string, string>) => ({
    list: async (dir: string) => [
      ...new Set(
        Object.keys(files)
          .filter((f) => (dir ? f.startsWith(`${dir}/`) : true))
          .map((f) => (dir ? f.slice(dir.length + 1) : f))
          .map((f) => (f.includes("/") ? `${f.split("/")[0]!}/` : f)),
      ),
    ],
    read: async (path: string) => files[path] ?? null,
  });
  const job = (...steps: string[]) =>
    ["on: [push]", "jobs:", "  t:", "    runs-on: ubuntu-latest", "    steps:", ...steps, ""].join("\n");

  it("uv from astral-sh/setup-uv is installed first when the image lacks it, pinned, and found on PATH", async () => {
    const { discoverChecks } = await import("../../../src/checks/discover/discover-checks.js");
    const plan = await discoverChecks(
      reader({
        ".github/workflows/ci.yml": job(
          "      - uses: astral-sh/setup-uv@v5",
          "        with:",
          '          version: "0.5.4"',
          "      - run: uv sync",
          "      - run: uv run pytest",
        ),
      }),
    );
    expect(plan.setup[0]).toEqual({
      command:
        'PATH="$HOME/.local/bin:$PATH"; command -v uv >/dev/null 2>&1 || PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --user --retries 1 uv==0.5.4',
      source: "implied: `uv` is called by .github/workflows/ci.yml job t, step 2; installed when the image lacks it",
      // Its failure leaves the run to the stand-ins (the sandbox's `python3 -m pytest`).
      installsRunners: ["uv"],
      // Served from the repository's tools shelf where the sandbox keeps one (src/checks/tool-shelf.ts).
      tool: { name: "uv", requirement: "uv==0.5.4" },
    });
    expect(plan.setup[1]!.command).toBe('PATH="$HOME/.local/bin:$PATH" uv sync');
    expect(plan.test[0]!.command).toBe('PATH="$HOME/.local/bin:$PATH" uv run pytest');
  });

  it("a tool the workflow installs itself (`pip install tox`) is not installed twice", async () => {
    const { discoverChecks } = await import("../../../src/checks/discover/discover-checks.js");
    const plan = await discoverChecks(
      reader({ ".github/workflows/ci.yml": job("      - run: pip install tox", "      - run: tox -e py312") }),
    );
    expect(plan.setup.map((c) => c.command)).toEqual(["pip install tox"]);
    expect(plan.test.map((c) => c.command)).toEqual(["tox -e py312"]);
    // The workflow's own install of a runner comes from the tools shelf where the sandbox keeps one.
    expect(plan.setup[0]!.tool).toEqual({ name: "tox", requirement: "tox" });
  });

  it("CI's own install of one runner (`python -m pip install --upgrade pip hatch`) names it for the tools shelf", async () => {
    const { discoverChecks } = await import("../../../src/checks/discover/discover-checks.js");
    const plan = await discoverChecks(
      reader({
        ".github/workflows/ci.yml": job(
          "      - run: python -m pip install --upgrade pip hatch",
          "      - run: pip install -r requirements.txt",
          "      - run: python -m pytest",
        ),
      }),
    );
    expect(plan.setup.map((c) => [c.command, c.tool])).toEqual([
      ["python -m pip install --upgrade pip hatch", { name: "hatch", requirement: "hatch" }],
      ["pip install -r requirements.txt", undefined],
    ]);
  });

  it("the uv.lock convention (`uv sync`) gets uv too", async () => {
    const { discoverChecks } = await import("../../../src/checks/discover/discover-checks.js");
    const plan = await discoverChecks(
      reader({ "uv.lock": "", "pyproject.toml": "[project]\nname='x'\n[tool.pytest.ini_options]\n" }),
    );
    expect(plan.setup[0]!.command).toMatch(/command -v uv .*pip install --user --retries 1 uv$/);
    expect(plan.setup[1]!.command).toBe('PATH="$HOME/.local/bin:$PATH" uv sync');
  });

  it("ruby/setup-ruby with bundler-cache runs bundle install; snok/install-poetry's in-project venv is $VENV", async () => {
    const { discoverChecks } = await import("../../../src/checks/discover/discover-checks.js");
    const ruby = await discoverChecks(
      reader({
        ".github/workflows/ci.yml": job(
          "      - uses: ruby/setup-ruby@v1",
          "        with:",
          "          ruby-version: '3.3'",
          "          bundler-cache: true",
          "      - run: bundle exec rake",
        ),
      }),
    );
    expect(ruby.setup.map((c) => c.command)).toEqual(["bundle install"]);
    expect(ruby.setup[0]!.source).toMatch(/^implied by .*bundler-cache: true/);
    expect(ruby.toolchain.ruby).toBe("3.3");
    const poetry = await discoverChecks(
      reader({
        ".github/workflows/ci.yml": job(
          "      - uses: snok/install-poetry@v1",
          "        with:",
          "          virtualenvs-in-project: true",
          "      - run: poetry install",
          "      - run: |",
          "          source $VENV",
          "          pytest tests",
        ),
      }),
    );
    expect(poetry.test[0]!.command).toBe(
      "export POETRY_VIRTUALENVS_IN_PROJECT=true VENV=.venv/bin/activate\nsource $VENV\npytest tests",
    );
    expect(poetry.setup[0]!.command).toMatch(/pip install --user --retries 1 poetry$/);
  });
});

describe("legacy CI files, read after the workflows", () => {
  const reader = (files: Record<string, string>) => ({
    list: async (dir: string) => [
      ...new Set(
        Object.keys(files)
          .filter((f) => (dir ? f.startsWith(`${dir}/`) : true))
          .map((f) => (dir ? f.slice(dir.length + 1) : f))
          .map((f) => (f.includes("/") ? `${f.split("/")[0]!}/` : f)),
      ),
    ],
    read: async (path: string) => files[path] ?? null,
  });

  it.each([
    // tj/co's .travis.yml: its script, not the package.json's plain "test"
    [
      {
        ".travis.yml":
          'language: node_js\nnode_js:\n- "stable"\nscript: "npm run-script test-travis"\nafter_script: "npm install coveralls@2 && cat ./coverage/lcov.info | coveralls"\n',
        "package.json": '{"scripts":{"test":"mocha"}}',
      },
      ["npm install"],
      ["npm run-script test-travis"],
    ],
    // Travis's Node defaults when the file names no script (jonschlinkert/is-number)
    [{ ".travis.yml": "language: node_js\nnode_js:\n  - node\n" }, ["npm install"], ["npm test"]],
    // a C repository whose only CI is .travis.yml (zserge/jsmn)
    [{ ".travis.yml": "language: c\nscript:\n  - make test\n" }, [], ["make test"]],
    [
      {
        ".circleci/config.yml":
          "version: 2\njobs:\n  test:\n    steps:\n      - checkout\n      - run: pip install -r requirements.txt\n      - run:\n          command: pytest -q\n  deploy:\n    steps:\n      - run: ./deploy.sh\n",
      },
      ["pip install -r requirements.txt"],
      ["pytest -q"],
    ],
    [
      {
        ".gitlab-ci.yml":
          "image: python:3.12\nstages: [test, deploy]\nbefore_script:\n  - pip install -e .\ntest:\n  stage: test\n  script:\n    - pytest\npages:\n  script:\n    - mkdocs build\nrelease:\n  stage: deploy\n  script:\n    - twine upload dist/*\n",
      },
      ["pip install -e ."],
      ["pytest"],
    ],
  ])("%j", async (files, setup, test) => {
    const { discoverChecks } = await import("../../../src/checks/discover/discover-checks.js");
    const plan = await discoverChecks(reader(files));
    expect(plan.setup.map((c) => c.command)).toEqual(setup);
    expect(plan.test.map((c) => c.command)).toEqual(test);
  });

  it("are read together, beside the workflows: each is asked for before the workflows' folder is answered", async () => {
    const { discoverChecks } = await import("../../../src/checks/discover/discover-checks.js");
    const files: Record<string, string> = {
      ".github/workflows/ci.yml":
        "on: [push]\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm test\n",
      ".travis.yml": "language: python\nscript:\n  - flake8\n",
    };
    const plain = reader(files);
    const asked = new Set<string>();
    let askedBeforeWorkflows: string[] | null = null;
    const plan = await discoverChecks({
      // The workflows' folder is answered once the three legacy files have been asked for (or after a bounded wait).
      list: async (dir) => {
        if (dir === ".github/workflows") {
          for (let i = 0; i < 1_000 && asked.size < 3; i++) await new Promise((r) => setTimeout(r, 5));
          askedBeforeWorkflows ??= [...asked].sort();
        }
        return plain.list(dir);
      },
      read: async (path) => {
        if (!path.startsWith(".github/")) asked.add(path);
        return plain.read(path);
      },
    });
    expect(askedBeforeWorkflows).toEqual([".circleci/config.yml", ".gitlab-ci.yml", ".travis.yml"]);
    expect(plan.test.map((c) => c.command)).toEqual(["npm test"]);
    expect(plan.lint.map((c) => [c.command, c.source])).toEqual([["flake8", ".travis.yml"]]);
  });

  it("the root's listing is asked for beside the workflows: conventions need it when the workflows name no check", async () => {
    const { discoverChecks } = await import("../../../src/checks/discover/discover-checks.js");
    const plain = reader({ "package.json": '{"scripts":{"test":"mocha"}}' });
    const listed: string[] = [];
    let listedBeforeWorkflows: string[] | null = null;
    const plan = await discoverChecks({
      // The workflows' folder is answered once the root has been asked for (or after a bounded wait).
      list: async (dir) => {
        listed.push(dir);
        if (dir === ".github/workflows") {
          for (let i = 0; i < 1_000 && !listed.includes(""); i++) await new Promise((r) => setTimeout(r, 5));
          listedBeforeWorkflows ??= [...listed];
        }
        return plain.list(dir);
      },
      read: plain.read,
    });
    expect(listedBeforeWorkflows).toContain("");
    expect(plan.test.map((c) => c.command)).toEqual(["npm test"]);
  });

  it("the workflow files are read together too, and walked in name order", async () => {
    const { discoverChecks } = await import("../../../src/checks/discover/discover-checks.js");
    const job = (cmd: string) =>
      `on: [push]\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - run: ${cmd}\n`;
    const plain = reader({
      ".github/workflows/a.yml": job("npm test"),
      ".github/workflows/b.yml": job("npx jest"),
      ".github/workflows/c.yml": job("npx vitest run"),
    });
    const asked = new Set<string>();
    let askedBeforeFirst: number | null = null;
    const plan = await discoverChecks({
      list: plain.list,
      // The first workflow is answered once all three have been asked for (or after a bounded wait).
      read: async (path) => {
        if (path.startsWith(".github/workflows/")) asked.add(path);
        if (path === ".github/workflows/a.yml") {
          for (let i = 0; i < 1_000 && asked.size < 3; i++) await new Promise((r) => setTimeout(r, 5));
          askedBeforeFirst = asked.size;
        }
        return plain.read(path);
      },
    });
    expect(askedBeforeFirst).toBe(3);
    expect(plan.test.map((c) => c.command)).toEqual(["npm test", "npx jest", "npx vitest run"]);
  });

  it("fill only the buckets the workflows left empty", async () => {
    const { discoverChecks } = await import("../../../src/checks/discover/discover-checks.js");
    const plan = await discoverChecks(
      reader({
        ".github/workflows/lint.yml":
          "on: [push]\njobs:\n  l:\n    runs-on: ubuntu-latest\n    steps:\n      - run: ruff check .\n",
        ".travis.yml": "language: python\nscript:\n  - flake8\n  - pytest\n",
      }),
    );
    expect(plan.lint.map((c) => c.command)).toEqual(["ruff check ."]);
    expect(plan.test.map((c) => [c.command, c.source])).toEqual([["pytest", ".travis.yml"]]);
  });
});
