import { classifySetup, touchesInputs, type SetupInputs, type SetupVerdict } from "../../src/checks/setup-inputs.js";

/** A checkout's files as the classification reads them (false: there, but not readable). */
const files =
  (map: Record<string, string | false>) =>
  async (rel: string): Promise<string | null | false> =>
    rel in map ? map[rel]! : null;

const pkg = (json: object) => JSON.stringify(json);
const early = async (command: string, map: Record<string, string | false>, cwd?: string): Promise<SetupVerdict> =>
  classifySetup({ command, ...(cwd ? { cwd } : {}) }, files(map));
const inputsOf = (v: SetupVerdict): SetupInputs => {
  if (!v.early) throw new Error(`not early: ${v.why}`);
  return v.inputs;
};

describe("which setup commands may run before the edit", () => {
  const plain = { "package.json": pkg({ name: "x", scripts: { test: "mocha" }, devDependencies: { mocha: "^10" } }) };

  it.each([
    "npm ci",
    "npm install",
    "npm i --no-audit --prefer-offline",
    "yarn",
    "yarn install --frozen-lockfile",
    "pnpm install",
  ])("%s with a plain package.json", async (command) => {
    expect((await early(command, plain)).early).toBe(true);
  });

  it.each([
    [
      "postinstall",
      { scripts: { postinstall: "node build.js" } },
      "runs the repository's code on install (postinstall)",
    ],
    ["prepare", { scripts: { prepare: "tsc" } }, "(prepare)"],
    ["preinstall", { scripts: { preinstall: "node check.js" } }, "(preinstall)"],
    ["workspaces", { workspaces: ["packages/*"] }, "workspaces"],
    ["a file: dependency", { dependencies: { lib: "file:../lib" } }, "`lib` is a folder"],
    ["a link: override", { overrides: { lib: "link:./vendor/lib" } }, "`lib` is a folder"],
  ])("not with %s in package.json", async (_what, json, why) => {
    const v = await early("npm ci", { "package.json": pkg(json) });
    expect(v).toEqual({ early: false, why: expect.stringContaining(why) });
  });

  it("a lifecycle script is fine with --ignore-scripts", async () => {
    expect(
      (await early("npm ci --ignore-scripts", { "package.json": pkg({ scripts: { prepare: "tsc" } }) })).early,
    ).toBe(true);
  });

  it("not when binding.gyp would make npm compile the sources, a pnpm workspace, or a package.json that is not JSON", async () => {
    expect((await early("npm ci", { ...plain, "binding.gyp": "{}" })).early).toBe(false);
    expect((await early("pnpm install", { ...plain, "pnpm-workspace.yaml": "packages: [a]" })).early).toBe(false);
    expect((await early("npm ci", { "package.json": "{ nope" })).early).toBe(false);
    expect((await early("npm ci", {})).early).toBe(false);
    expect((await early("npm ci", { "package.json": false })).early).toBe(false);
  });

  it.each([
    "npm install left-pad",
    "npm install ./lib",
    "npm run build",
    "npm ci && npm run build",
    "CI=1 npm ci",
    "npm ci; touch x",
    "cd web && npm ci",
    "npm ci $FLAGS",
    "make deps",
    "pip install .",
    "pip install -e .",
    "pip install -e .[test]",
    "pip install ./pkg",
    "uv sync",
    "poetry install",
    "python setup.py develop",
    "go build ./...",
    "cargo build",
    "cargo fetch --manifest-path sub/Cargo.toml",
  ])("not %s", async (command) => {
    expect((await early(command, { ...plain, "requirements.txt": "requests\n" })).early).toBe(false);
  });

  it("pip install -r of requirement files that name registry packages only, following their includes", async () => {
    const map = {
      "requirements.txt": "requests==2.31.0  # http\n-r requirements/base.txt\n--index-url https://pypi.org/simple\n",
      "requirements/base.txt": "attrs>=22\ngit+https://github.com/x/y.git#egg=y\n-c constraints.txt\n",
      "requirements/constraints.txt": "attrs<24\n",
    };
    const v = await early("python -m pip install -U -r requirements.txt pytest", map);
    expect(inputsOf(v).exact).toEqual(["requirements.txt", "requirements/base.txt", "requirements/constraints.txt"]);
    expect((await early("pip install --requirement=requirements.txt", map)).early).toBe(true);
  });

  it.each([
    ["-e .", "has `-e .`"],
    [".", "installs a local path (`.`)"],
    ["./libs/x", "local path"],
    ["libs/x", "local path"],
    ["file:///tmp/x.whl", "local path"],
    ["dist/pkg-1.0.tar.gz", "local path"],
    ["requests\n--find-links ./wheels", "--find-links"],
    ["${PKG}", "environment variable"],
  ])("not pip install -r of a file with %s", async (line, why) => {
    expect(await early("pip install -r requirements.txt", { "requirements.txt": `${line}\n` })).toEqual({
      early: false,
      why: expect.stringContaining(why),
    });
  });

  it("not when the requirement file is missing or outside the checkout", async () => {
    expect((await early("pip install -r requirements.txt", {})).early).toBe(false);
    expect((await early("pip install -r ../requirements.txt", { "../requirements.txt": "x\n" })).early).toBe(false);
  });

  it("go mod download, unless a go.work or a local replace reads the repository's folders", async () => {
    const mod = "module example.com/x\n\ngo 1.22\n\nrequire github.com/pkg/errors v0.9.1\n";
    expect((await early("go mod download", { "go.mod": mod })).early).toBe(true);
    expect((await early("go mod download -x", { "go.mod": mod })).early).toBe(true);
    expect((await early("go mod download", { "go.mod": `${mod}replace example.com/y => ../y\n` })).early).toBe(false);
    expect((await early("go mod download", { "go.mod": `${mod}replace (\n\texample.com/y => ./y\n)\n` })).early).toBe(
      false,
    );
    expect((await early("go mod download", { "go.mod": mod, "go.work": "use ." })).early).toBe(false);
    // go looks for go.work upwards from the command's folder.
    expect((await early("go mod download", { "svc/go.mod": mod, "go.work": "use ./svc" }, "svc")).early).toBe(false);
    expect((await early("go mod download", {})).early).toBe(false);
  });

  it("cargo fetch, and bundle install with a Gemfile that loads nothing of the repository's", async () => {
    expect((await early("cargo fetch --locked", {})).early).toBe(true);
    const gemfile = 'source "https://rubygems.org"\n\ngem "rake", "~> 13.0"\ngem "rspec"\n';
    expect((await early("bundle install --jobs 4", { Gemfile: gemfile })).early).toBe(true);
    expect((await early("bundle install", { Gemfile: `${gemfile}gemspec\n` })).early).toBe(false);
    expect((await early("bundle install", { Gemfile: `${gemfile}gem "x", path: "vendor/x"\n` })).early).toBe(false);
    expect((await early("bundle install", { Gemfile: `eval_gemfile "Gemfile.local"\n` })).early).toBe(false);
  });

  it("an implied tool install, whatever its line: it is installed from the default branch's requirement", async () => {
    const v = await classifySetup(
      {
        command: "pip install --user uv || pip install --user --break-system-packages uv",
        tool: { name: "uv", requirement: "uv" },
      },
      files({}),
    );
    expect(v).toEqual({ early: true, inputs: { near: [], anywhere: [], exact: [], under: [] } });
  });
});

describe("which of the run's changes reach an early command's inputs", () => {
  it("npm: its manifests, lockfiles and settings in its folder or above, .yarn/ and binding.gyp; not the source", async () => {
    const inputs = inputsOf(await early("npm ci", { "web/package.json": pkg({ name: "w" }) }, "web"));
    const reaches = (path: string, extra: object = {}) => touchesInputs(inputs, { path, ...extra }, "web");
    for (const p of [
      "web/package.json",
      "web/package-lock.json",
      "web/.npmrc",
      ".npmrc",
      "web/yarn.lock",
      "web/.yarn/releases/yarn.cjs",
      "web/binding.gyp",
    ])
      expect([p, reaches(p)]).toEqual([p, true]);
    for (const p of ["web/src/index.js", "package.json.bak", "other/package.json", "web/lib/package.json", "README.md"])
      expect([p, reaches(p)]).toEqual([p, false]);
    // A created or deleted source file is still not an input.
    expect(reaches("web/src/new.js", { created: true })).toBe(false);
  });

  it("pip: exactly the requirement files it read", async () => {
    const inputs = inputsOf(await early("pip install -r requirements-dev.txt", { "requirements-dev.txt": "pytest\n" }));
    expect(touchesInputs(inputs, { path: "requirements-dev.txt" })).toBe(true);
    expect(touchesInputs(inputs, { path: "requirements.txt", created: true })).toBe(false);
    expect(touchesInputs(inputs, { path: "setup.py" })).toBe(false);
  });

  it("cargo: every Cargo.toml and Cargo.lock, .cargo/, the toolchain file, and a crate's root files appearing or going", async () => {
    const inputs = inputsOf(await early("cargo fetch", {}));
    expect(touchesInputs(inputs, { path: "crates/core/Cargo.toml" })).toBe(true);
    expect(touchesInputs(inputs, { path: "Cargo.lock" })).toBe(true);
    expect(touchesInputs(inputs, { path: ".cargo/config.toml" })).toBe(true);
    expect(touchesInputs(inputs, { path: "rust-toolchain.toml" })).toBe(true);
    expect(touchesInputs(inputs, { path: "src/lib.rs" })).toBe(false);
    expect(touchesInputs(inputs, { path: "src/lib.rs", created: true })).toBe(true);
    expect(touchesInputs(inputs, { path: "crates/core/build.rs", deleted: true })).toBe(true);
  });

  it("go: go.mod and go.sum in its folder or above, vendor/", async () => {
    const inputs = inputsOf(await early("go mod download", { "go.mod": "module x\n" }));
    expect(touchesInputs(inputs, { path: "go.sum" })).toBe(true);
    expect(touchesInputs(inputs, { path: "vendor/modules.txt" })).toBe(true);
    expect(touchesInputs(inputs, { path: "pkg/x.go", created: true })).toBe(false);
  });
});
