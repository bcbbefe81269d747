import { parseRepoConfig } from "../../../src/config/repo-config.js";
import { checkSettingsOf, checkSpecsOf, resolveChecks } from "../../../src/run/prepare/resolve-checks.js";

/** A repository with a workflow running `npm ci`, `npm run lint` and `npm test`. */
const files: Record<string, string> = {
  ".github/workflows/ci.yml":
    "on: [push]\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm ci\n      - run: npm run lint\n      - run: npm test\n",
};
const reader = {
  list: async (dir: string) => (dir === ".github/workflows" ? ["ci.yml"] : dir === "" ? [".github/"] : []),
  read: async (p: string) => files[p] ?? null,
};
const settings = { setup: [] as string[], lint: [] as string[], checks: "auto" as const };

describe("resolveChecks", () => {
  it("discovers every bucket when the config names none; discovered commands run as written", async () => {
    const r = await resolveChecks(settings, reader);
    expect(r.origin).toBe("discovered");
    expect(checkSpecsOf(r)).toEqual([
      { kind: "setup", command: "npm ci", source: ".github/workflows/ci.yml job t, step 1", asWritten: true },
      { kind: "lint", command: "npm run lint", source: ".github/workflows/ci.yml job t, step 2", asWritten: true },
      { kind: "test", command: "npm test", source: ".github/workflows/ci.yml job t, step 3", asWritten: true },
    ]);
  });

  it("a key set in the config replaces what was found for it, and only that key", async () => {
    const r = await resolveChecks({ ...settings, test: "pytest -x", tests: ["pytest -x"] }, reader);
    expect(r.origin).toBe("mixed");
    expect(r.plan.test).toEqual([{ command: "pytest -x", source: ".github/aider.yml `test`" }]);
    expect(r.plan.lint.map((c) => c.command)).toEqual(["npm run lint"]);
    expect(checkSpecsOf(r).find((s) => s.kind === "test")).not.toHaveProperty("asWritten");
  });

  /** The check settings of a `.github/aider.yml` holding `raw`. */
  const fromConfig = (raw: unknown) => {
    const parsed = parseRepoConfig(raw);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    return checkSettingsOf(parsed.config);
  };

  it("an empty list switches a discovered bucket off (`lint: []`); an absent key leaves it to discovery", async () => {
    const noLint = await resolveChecks(fromConfig({ lint: [] }), reader);
    expect(checkSpecsOf(noLint).map((s) => s.command)).toEqual(["npm ci", "npm test"]);
    expect(noLint).toMatchObject({ origin: "mixed", emptied: ["lint"] });
    const noSetupNoTest = await resolveChecks(fromConfig({ setup: [], test: [] }), reader);
    expect(checkSpecsOf(noSetupNoTest).map((s) => s.command)).toEqual(["npm run lint"]);
    // Both lint and test decided by the config: nothing is discovered (not even setup), and nothing is read.
    const failing = {
      list: () => Promise.reject(new Error("must not be read")),
      read: () => Promise.reject(new Error("no")),
    };
    const none = await resolveChecks(fromConfig({ lint: [], test: [] }), failing);
    expect(none).toMatchObject({ origin: "config", emptied: ["lint", "test"] });
    expect(checkSpecsOf(none)).toEqual([]);
    const absent = await resolveChecks(fromConfig({}), reader);
    expect(checkSpecsOf(absent).map((s) => s.command)).toEqual(["npm ci", "npm run lint", "npm test"]);
    expect(absent).not.toHaveProperty("emptied");
  });

  it("checks: off reads nothing and keeps the configured commands", async () => {
    const none = {
      list: async () => Promise.reject(new Error("must not be read")),
      read: async () => Promise.reject(new Error("must not be read")),
    };
    expect(await resolveChecks({ ...settings, checks: "off" }, none)).toEqual({
      origin: "off",
      plan: { setup: [], lint: [], test: [], toolchain: {}, excluded: [] },
    });
    expect((await resolveChecks({ ...settings, lint: ["ruff check"], checks: "off" }, none)).origin).toBe("config");
  });

  it("a repository that cannot be read keeps the configured commands and says why", async () => {
    const broken = { list: async () => Promise.reject(new Error("HTTP 502")), read: async () => null };
    const r = await resolveChecks({ ...settings, lint: ["ruff check"] }, broken);
    expect(r).toMatchObject({ origin: "config", problem: expect.stringContaining("HTTP 502") });
    expect(r.plan.lint).toHaveLength(1);
  });
});
