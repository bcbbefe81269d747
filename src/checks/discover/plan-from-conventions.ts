import { resolveVersion } from "./resolve-version.js";
import { versionFromFile } from "./toolchain-of-action.js";
import { emptyPlan, type CheckPlan, type PlannedCommand, type RepoReader } from "./types.js";

type Ecosystem = "make" | "just" | "node" | "python" | "go" | "rust" | "maven" | "gradle";
interface PackagePlan {
  plan: CheckPlan;
  ecosystems: Set<Ecosystem>;
}

const MAX_PACKAGES = 12;
const CONTAINERS = ["packages", "apps", "services", "libs", "modules", "crates", "projects", "tools"];
const NPM_PLACEHOLDER = /no test specified/;

/**
 * The check commands a repository's manifests imply when no workflow names any: `package.json` scripts (package
 * manager from the lockfile), Python's pytest/unittest and ruff/flake8 when configured, `go.mod`, `Cargo.toml`,
 * Maven, Gradle, and `Makefile`/`justfile` targets, which wrap a project's own commands and so win over the language's
 * defaults. Packages of a monorepo (workspaces, `packages/*`, sub-folders with a manifest) are planned in their folder.
 */
export async function planFromConventions(reader: RepoReader): Promise<CheckPlan> {
  const root = await planPackage(reader, "");
  const plan = root.plan;
  const dirs = await packageDirs(reader);
  let count = 0;
  for (const dir of dirs) {
    if (count >= MAX_PACKAGES) {
      plan.excluded.push({
        what: `${dir}/ and later packages`,
        why: `only the first ${MAX_PACKAGES} packages of a monorepo are planned`,
      });
      break;
    }
    const sub = await planPackage(reader, dir);
    // A root that already tests an ecosystem (npm workspaces, a Cargo workspace) covers its packages of that kind.
    if (![...sub.ecosystems].some((e) => !root.ecosystems.has(e) || !hasChecks(root.plan))) continue;
    if (!hasChecks(sub.plan)) continue;
    count++;
    for (const bucket of ["setup", "lint", "test"] as const) plan[bucket].push(...sub.plan[bucket]);
    for (const [tool, version] of Object.entries(sub.plan.toolchain)) plan.toolchain[tool] ??= version;
    plan.excluded.push(...sub.plan.excluded);
  }
  return plan;
}

const hasChecks = (plan: CheckPlan) => plan.lint.length + plan.test.length > 0;

async function packageDirs(reader: RepoReader): Promise<string[]> {
  const rootEntries = await reader.list("");
  const dirs = new Set<string>();
  for (const e of rootEntries) {
    if (!e.endsWith("/") || e.startsWith(".")) continue;
    const name = e.slice(0, -1);
    if (CONTAINERS.includes(name)) {
      for (const sub of await reader.list(name))
        if (sub.endsWith("/") && !sub.startsWith(".")) dirs.add(`${name}/${sub.slice(0, -1)}`);
    } else if (
      ![
        "node_modules",
        "vendor",
        "dist",
        "build",
        "target",
        "docs",
        "test",
        "tests",
        "src",
        "lib",
        "scripts",
        "examples",
      ].includes(name)
    ) {
      dirs.add(name);
    }
  }
  return [...dirs].sort();
}

async function planPackage(reader: RepoReader, dir: string): Promise<PackagePlan> {
  const at = (f: string) => (dir ? `${dir}/${f}` : f);
  const entries = new Set(await reader.list(dir));
  const has = (f: string) => entries.has(f);
  const plan = emptyPlan();
  const ecosystems = new Set<Ecosystem>();
  const add = (bucket: "setup" | "lint" | "test", command: string, source: string) => {
    const cmd: PlannedCommand = { command, source: at(source), ...(dir ? { cwd: dir } : {}) };
    if (!plan[bucket].some((c) => c.command === command)) plan[bucket].push(cmd);
  };

  // Wrappers first: a Makefile or justfile target is how the project itself runs its checks.
  for (const [file, tool, eco] of [
    ["Makefile", "make", "make"],
    ["GNUmakefile", "make", "make"],
    ["makefile", "make", "make"],
    ["justfile", "just", "just"],
    ["Justfile", "just", "just"],
    [".justfile", "just", "just"],
  ] as const) {
    if (!has(file)) continue;
    const text = (await reader.read(at(file))) ?? "";
    const targets = tool === "make" ? makeTargets(text) : justRecipes(text);
    const test = ["test", "tests", "check"].find((t) => targets.has(t));
    const lint = ["lint", "typecheck"].find((t) => targets.has(t));
    if (test) add("test", `${tool} ${test}`, `${file} ${tool === "make" ? "target" : "recipe"} ${test}`);
    if (lint) add("lint", `${tool} ${lint}`, `${file} ${tool === "make" ? "target" : "recipe"} ${lint}`);
    if (test || lint) ecosystems.add(eco);
    break;
  }
  const wrapped = plan.test.length > 0;
  const wrappedLint = plan.lint.length > 0;

  if (has("package.json"))
    await node(reader, at, has, plan, add, { wrapped, wrappedLint }).then((used) => used && ecosystems.add("node"));
  if (
    ["pyproject.toml", "setup.cfg", "setup.py", "tox.ini", "requirements.txt", "noxfile.py", "pytest.ini"].some(has) ||
    [...entries].some((e) => /^requirements.*\.txt$/.test(e))
  ) {
    if (await python(reader, at, entries, plan, add, { wrapped, wrappedLint })) ecosystems.add("python");
  }
  if (has("go.mod")) {
    ecosystems.add("go");
    if (!wrapped) add("test", "go test ./...", "go.mod");
    if (!wrappedLint) add("lint", "go vet ./...", "go.mod");
    const v = await versionFromFile(at("go.mod"), reader);
    // The `go` line is the oldest Go the module builds with: the newest known Go builds it too.
    if (v) plan.toolchain.go ??= resolveVersion("go", v, { minimum: true });
  }
  if (has("Cargo.toml")) {
    ecosystems.add("rust");
    if (!wrapped) add("test", "cargo test", "Cargo.toml");
    const file = has("rust-toolchain.toml") ? "rust-toolchain.toml" : has("rust-toolchain") ? "rust-toolchain" : null;
    const text = file ? await reader.read(at(file)) : null;
    const channel = text
      ? (/channel\s*=\s*"([^"]+)"/.exec(text)?.[1] ?? (file === "rust-toolchain" ? text.trim() : null))
      : null;
    if (channel) plan.toolchain.rust ??= channel;
  }
  if (has("pom.xml")) {
    ecosystems.add("maven");
    if (!wrapped) add("test", `${has("mvnw") ? "./mvnw" : "mvn"} -B test`, "pom.xml");
    const pom = (await reader.read(at("pom.xml"))) ?? "";
    const v = /<(?:maven\.compiler\.release|maven\.compiler\.source|java\.version)>\s*([\d.]+)\s*</.exec(pom)?.[1];
    if (v) plan.toolchain.java ??= v;
  } else if (has("build.gradle") || has("build.gradle.kts")) {
    ecosystems.add("gradle");
    if (!wrapped)
      add(
        "test",
        `${has("gradlew") ? "./gradlew" : "gradle"} test`,
        has("build.gradle") ? "build.gradle" : "build.gradle.kts",
      );
  }
  return { plan, ecosystems };
}

type Add = (bucket: "setup" | "lint" | "test", command: string, source: string) => void;

async function node(
  reader: RepoReader,
  at: (f: string) => string,
  has: (f: string) => boolean,
  plan: CheckPlan,
  add: Add,
  w: { wrapped: boolean; wrappedLint: boolean },
): Promise<boolean> {
  const text = await reader.read(at("package.json"));
  let pkg: {
    scripts?: Record<string, unknown>;
    dependencies?: object;
    devDependencies?: object;
    engines?: { node?: unknown };
    packageManager?: unknown;
  } = {};
  try {
    pkg = JSON.parse(text ?? "{}") as typeof pkg;
  } catch {
    plan.excluded.push({ what: at("package.json"), why: "is not valid JSON" });
    return false;
  }
  const scripts = pkg.scripts && typeof pkg.scripts === "object" ? pkg.scripts : {};
  const pmField =
    typeof pkg.packageManager === "string" ? /^(npm|pnpm|yarn|bun)@([^+\s]+)/.exec(pkg.packageManager) : null;
  const pm = has("pnpm-lock.yaml")
    ? "pnpm"
    : has("yarn.lock")
      ? "yarn"
      : has("bun.lockb") || has("bun.lock")
        ? "bun"
        : (pmField?.[1] ?? "npm");
  if (pmField && pmField[1] !== "npm") plan.toolchain[pmField[1]!] ??= pmField[2]!;
  const deps = Object.keys(pkg.dependencies ?? {}).length + Object.keys(pkg.devDependencies ?? {}).length;
  if (deps > 0) {
    const lock = {
      npm: "package-lock.json",
      pnpm: "pnpm-lock.yaml",
      yarn: "yarn.lock",
      bun: has("bun.lock") ? "bun.lock" : "bun.lockb",
    }[pm]!;
    const install = {
      npm: has("package-lock.json") ? "npm ci" : "npm install",
      pnpm: "pnpm install --frozen-lockfile",
      yarn: has(".yarnrc.yml") ? "yarn install --immutable" : "yarn install --frozen-lockfile",
      bun: "bun install --frozen-lockfile",
    }[pm]!;
    add("setup", install, has(lock) ? lock : "package.json");
  }
  let used = false;
  const script = (name: string) =>
    typeof scripts[name] === "string" && !(name === "test" && NPM_PLACEHOLDER.test(scripts[name] as string));
  if (!w.wrapped && script("test")) {
    add("test", `${pm} test`, 'package.json script "test"');
    used = true;
  }
  if (!w.wrappedLint) {
    for (const name of ["lint", "typecheck", "type-check"]) {
      if (!script(name)) continue;
      add("lint", `${pm} run ${name}`, `package.json script "${name}"`);
      used = true;
    }
  }
  const engines = typeof pkg.engines?.node === "string" ? pkg.engines.node : null;
  const nvm = has(".nvmrc") ? ".nvmrc" : has(".node-version") ? ".node-version" : null;
  const version = nvm ? await versionFromFile(at(nvm), reader) : engines;
  if (version) plan.toolchain.node ??= resolveVersion("node", version);
  return used || deps > 0;
}

async function python(
  reader: RepoReader,
  at: (f: string) => string,
  entries: Set<string>,
  plan: CheckPlan,
  add: Add,
  w: { wrapped: boolean; wrappedLint: boolean },
): Promise<boolean> {
  const has = (f: string) => entries.has(f);
  const read = async (f: string) => (has(f) ? ((await reader.read(at(f))) ?? "") : "");
  const [pyproject, setupCfg, toxIni] = await Promise.all([read("pyproject.toml"), read("setup.cfg"), read("tox.ini")]);
  const reqFiles = [...entries]
    .filter((e) => /^(?:requirements|dev-requirements|test-requirements)[\w.-]*\.txt$/.test(e))
    .sort();
  const reqText = (await Promise.all(reqFiles.map(read))).join("\n");
  const section = (text: string, name: string) =>
    new RegExp(`^\\[${name.replace(/[.[\]]/g, "\\$&")}\\]`, "m").test(text);

  // Setup: the project's own installer, else its requirement files, else the package itself.
  if (has("uv.lock")) add("setup", "uv sync", "uv.lock");
  else if (section(pyproject, "tool.poetry")) add("setup", "poetry install", "pyproject.toml [tool.poetry]");
  else if (reqFiles.length) for (const f of reqFiles) add("setup", `python -m pip install -r ${f}`, f);
  else if (section(pyproject, "project") || has("setup.py")) {
    const extra = /^(test|tests|dev)\s*=/m.exec(
      pyproject.split(/^\[project\.optional-dependencies\]/m)[1]?.split(/^\[/m)[0] ?? "",
    )?.[1];
    add(
      "setup",
      `python -m pip install -e ${extra ? `'.[${extra}]'` : "."}`,
      section(pyproject, "project") ? "pyproject.toml [project]" : "setup.py",
    );
  }

  const pytestConfigured: [boolean, string][] = [
    [section(pyproject, "tool.pytest.ini_options"), "pyproject.toml [tool.pytest.ini_options]"],
    [has("pytest.ini"), "pytest.ini"],
    [section(setupCfg, "tool:pytest"), "setup.cfg [tool:pytest]"],
    [section(toxIni, "pytest"), "tox.ini [pytest]"],
    [has("conftest.py"), "conftest.py"],
    [/\bpytest\b/.test(reqText), reqFiles.find(Boolean) ?? "requirements"],
    [/["']pytest\b/.test(pyproject), "pyproject.toml (pytest in its dependencies)"],
  ];
  const pytest = pytestConfigured.find(([yes]) => yes);
  if (!w.wrapped) {
    const toxCommands = /^\[testenv\][^[]*?^commands\s*=\s*((?:.*)(?:\n[ \t]+.*)*)/m.exec(toxIni)?.[1];
    if (pytest) add("test", "python -m pytest", pytest[1]);
    else if (toxCommands) {
      // tox would make a virtualenv (a download); its test commands run directly, its deps are installed first.
      const deps = /^\[testenv\][^[]*?^deps\s*=\s*((?:.*)(?:\n[ \t]+.*)*)/m.exec(toxIni)?.[1];
      const depList = (deps ?? "")
        .split(/\n/)
        .map((d) => d.trim())
        .filter((d) => d && !d.startsWith("#") && !d.startsWith("-"));
      if (depList.length)
        add(
          "setup",
          `python -m pip install ${depList.map((d) => `'${d.replace(/'/g, "")}'`).join(" ")}`,
          "tox.ini [testenv] deps",
        );
      for (const c of toxCommands
        .split(/\n/)
        .map((l) =>
          l
            .trim()
            .replace(/\{posargs[^}]*\}/g, "")
            .trim(),
        )
        .filter(Boolean))
        add("test", c, "tox.ini [testenv] commands");
    } else if (has("noxfile.py")) {
      const nox = (await read("noxfile.py")) ?? "";
      const session = /def\s+(tests?)\s*\(/.exec(nox)?.[1];
      if (session) add("test", `nox -s ${session}`, `noxfile.py session ${session}`);
    } else if (has("tests/") || has("test/")) {
      const folder = has("tests/") ? "tests" : "test";
      add("test", `python -m unittest discover -s ${folder} -t .`, `${folder}/ (unittest)`);
    } else if ([...entries].some((e) => /^test_.*\.py$/.test(e)))
      add("test", "python -m unittest", "test_*.py (unittest)");
  }
  if (!w.wrappedLint) {
    if (section(pyproject, "tool.ruff") || has("ruff.toml") || has(".ruff.toml"))
      add(
        "lint",
        "ruff check .",
        section(pyproject, "tool.ruff") ? "pyproject.toml [tool.ruff]" : has("ruff.toml") ? "ruff.toml" : ".ruff.toml",
      );
    else if (has(".flake8") || section(setupCfg, "flake8") || section(toxIni, "flake8"))
      add(
        "lint",
        "flake8",
        has(".flake8") ? ".flake8" : section(setupCfg, "flake8") ? "setup.cfg [flake8]" : "tox.ini [flake8]",
      );
  }
  const pythonVersion = has(".python-version")
    ? await versionFromFile(at(".python-version"), reader)
    : (/^requires-python\s*=\s*["']([^"'\n]+)["']/m.exec(pyproject)?.[1] ?? null);
  if (pythonVersion) plan.toolchain.python ??= resolveVersion("python", pythonVersion);
  return true;
}

function makeTargets(text: string): Set<string> {
  return new Set(
    [...text.matchAll(/^([A-Za-z0-9_][A-Za-z0-9_.-]*(?:\s+[A-Za-z0-9_][A-Za-z0-9_.-]*)*)\s*:(?!=)/gm)].flatMap((m) =>
      m[1]!.split(/\s+/),
    ),
  );
}

function justRecipes(text: string): Set<string> {
  return new Set([...text.matchAll(/^@?([A-Za-z0-9_][A-Za-z0-9_-]*)(?:\s+[^:=\n]*)?:(?!=)/gm)].map((m) => m[1]!));
}
