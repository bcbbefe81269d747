import { resolveVersion } from "../../../src/checks/discover/resolve-version.js";

const now = new Date("2026-11-28T00:00:00Z");
const before26Lts = new Date("2026-06-01T00:00:00Z");

describe("resolveVersion: the newest known version that satisfies what the repository asks", () => {
  it.each([
    // engines / .nvmrc / node-version
    ["node", ">= 0.11.16", "26"],
    ["node", ">=18", "26"],
    ["node", "lts/*", "26"],
    ["node", "lts/iron", "20"],
    ["node", "lts/hydrogen", "18"],
    ["node", "^18 || ^20", "20"],
    ["node", ">=18 <21", "20"],
    ["node", "18.x", "18"],
    ["node", "20", "20"],
    ["node", "^20.11.0", "20"],
    ["node", "v20.11.1", "20.11.1"],
    ["node", "^19", "19"],
    ["node", "0.12", "0.12"],
    ["node", "node", "26"],
    ["node", "not a range", "not a range"],
    // python-version / .python-version / requires-python
    ["python", "3.12", "3.12"],
    ["python", "3.12.4", "3.12.4"],
    ["python", "3.x", "3.14"],
    ["python", ">=3.9", "3.14"],
    ["python", ">=3.9,<3.13", "3.12"],
    ["python", "~=3.10", "3.14"],
    ["python", "~=3.10.2", "3.10"],
    ["python", "==3.11.*", "3.11"],
    ["python", ">=3.8, !=3.14.*", "3.13"],
    ["python", "3.14t", "3.14"],
    ["python", "pypy-3.11", "pypy-3.11"],
    // go.mod's go line is a minimum; setup-go's input a pin or a range
    ["go", "1.19", "1.19"],
    ["go", "^1.22", "1.26"],
    ["go", "stable", "1.26"],
    ["go", "oldstable", "1.25"],
    ["go", "1.20.x", "1.20"],
    ["ruby", "ruby", "4.0"],
    ["ruby", "3.3", "3.3"],
    ["rust", "stable", "stable"],
    ["rust", "1.78", "1.78"],
  ])("%s %s → %s", (tool, spec, version) => {
    expect(resolveVersion(tool, spec, { now })).toBe(version);
  });

  it("reads go.mod's go line as a minimum: the newest known Go", () => {
    expect(resolveVersion("go", "1.21", { minimum: true, now })).toBe("1.26");
    expect(resolveVersion("go", "1.21.0", { minimum: true, now })).toBe("1.26");
  });

  it("takes the newest LTS line of the day: Node 24 before Node 26 became LTS", () => {
    expect(resolveVersion("node", ">= 0.11.16", { now: before26Lts })).toBe("24");
    expect(resolveVersion("node", "lts/*", { now: before26Lts })).toBe("24");
  });
});

describe("discovery records the resolved toolchain", () => {
  const reader = (files: Record<string, string>) => ({
    list: async (dir: string) =>
      Object.keys(files)
        .filter((f) => (dir ? f.startsWith(`${dir}/`) : true))
        .map((f) => (dir ? f.slice(dir.length + 1) : f))
        .map((f) => (f.includes("/") ? `${f.split("/")[0]!}/` : f))
        .filter((f, i, all) => all.indexOf(f) === i),
    read: async (path: string) => files[path] ?? null,
  });

  it('an open engines range (`"node": ">= 0.11.16"`) is the newest LTS line, not Node 0.11', async () => {
    const { discoverChecks } = await import("../../../src/checks/discover/discover-checks.js");
    const plan = await discoverChecks(
      reader({
        "package.json": JSON.stringify({ engines: { node: ">= 0.11.16" }, scripts: { test: "mocha" } }),
      }),
    );
    expect(Number(plan.toolchain.node)).toBeGreaterThanOrEqual(24);
  });

  it("`python-version-file: pyproject.toml` reads requires-python", async () => {
    const { discoverChecks } = await import("../../../src/checks/discover/discover-checks.js");
    const plan = await discoverChecks(
      reader({
        "pyproject.toml": '[project]\nname = "x"\nrequires-python = ">=3.9,<3.13"\n',
        ".github/workflows/ci.yml":
          "on: [push]\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/setup-python@v5\n        with:\n          python-version-file: pyproject.toml\n      - run: pytest\n",
      }),
    );
    expect(plan.toolchain.python).toBe("3.12");
  });
});
