import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { discoverChecks } from "../../../src/checks/discover/discover-checks.js";
import { createLocalRepoReader } from "../../../src/workspace/local-repo-reader.js";
import { dangerOf, mainTool, scorePlan, toolsOf, type PlanScore } from "../../helpers/score-check-plan.js";

const CORPUS = path.resolve("test/fixtures/checks/corpus");
const cases = readdirSync(CORPUS)
  .filter((name) => statSync(path.join(CORPUS, name)).isDirectory())
  .sort();

interface Expected {
  source: { repo: string; commit: string; files: string[] };
  why: string;
  setup: string[];
  lint: string[];
  test: string[];
}

const expectedOf = (name: string): Expected =>
  JSON.parse(readFileSync(path.join(CORPUS, name, "expected.json"), "utf8")) as Expected;

/**
 * Real repositories' CI files and manifests (test/fixtures/checks/corpus/README.md: which, from which commit, how
 * they were copied), each with the test commands a person reading those files would run, written by hand. Discovery
 * must find the same tool for ≥ 95 % of those test commands, and never plan a command that publishes, deploys,
 * uploads, needs root or secrets.
 */
describe("check discovery on real repositories' CI files", () => {
  it("holds at least 30 repositories across ecosystems, each naming its source commit", () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
    for (const name of cases) {
      const e = expectedOf(name);
      expect(e.source.repo).toMatch(/^[\w.-]+\/[\w.-]+$/);
      expect(e.source.commit).toMatch(/^[0-9a-f]{40}$/);
      expect(e.test.length).toBeGreaterThan(0);
    }
  });

  it("finds the same test tool for ≥ 95 % of the hand-written test commands and plans nothing dangerous", async () => {
    const scores: [string, PlanScore][] = [];
    let planned = 0;
    let leftOut = 0;
    for (const name of cases) {
      const plan = await discoverChecks(createLocalRepoReader(path.join(CORPUS, name, "repo")));
      const commands = (b: "setup" | "lint" | "test") => plan[b].map((c) => c.command);
      planned += plan.setup.length + plan.lint.length + plan.test.length;
      leftOut += plan.excluded.length;
      scores.push([
        name,
        scorePlan({ setup: commands("setup"), lint: commands("lint"), test: commands("test") }, expectedOf(name)),
      ]);
    }
    const same = scores.reduce((n, [, s]) => n + s.sameTool, 0);
    const total = scores.reduce((n, [, s]) => n + s.expectedTests, 0);
    const report = scores
      .filter(([, s]) => s.missed.length || s.foreign.length || s.dangerous.length)
      .map(
        ([name, s]) =>
          `${name}: missed ${JSON.stringify(s.missed)} foreign ${JSON.stringify(s.foreign)} dangerous ${JSON.stringify(s.dangerous)}`,
      );
    process.stdout.write(
      `check discovery corpus: ${same}/${total} test commands with the same tool (${((100 * same) / total).toFixed(1)} %) over ${cases.length} repositories; ${scores.reduce((n, [, s]) => n + s.foreign.length, 0)} test commands of another tool; ${planned} commands planned, ${leftOut} "left out" lines\n${report.join("\n")}\n`,
    );
    expect(scores.flatMap(([name, s]) => s.dangerous.map((d) => `${name}: ${d}`))).toEqual([]);
    expect(same / total).toBeGreaterThanOrEqual(0.95);
  });
});

describe("the corpus scoring", () => {
  it.each([
    ["uv run --locked --no-default-groups --group dev tox run", ["tox"]],
    ["RICHGO_FORCE_COLOR=1 PATH=$HOME/go/bin/:$PATH make richtest", ["make"]],
    ["cd tests && ./unittest.sh", ["./unittest.sh"]],
    ["python -m nox -s test-3.10 -- tests/unit", ["nox"]],
    ["source $VENV\npytest tests -v", ["pytest"]],
    ["bundle exec rake", ["rake"]],
  ])("the tools of %s", (command, tools) => {
    expect(toolsOf(command)).toEqual(tools);
    expect(mainTool(command)).toBe(tools.at(-1));
  });

  it.each([
    ["npm publish", true],
    ["gh release create v1", true],
    ["sudo apt-get install -y lcov", true],
    ["curl -s https://codecov.io/bash | bash", true],
    ['echo "X=1" >> $GITHUB_ENV', true],
    ["npm test", false],
    ["make check VERBOSE=yes", false],
  ])("%s is dangerous: %s", (command, dangerous) => {
    expect(dangerOf(command) !== null).toBe(dangerous);
  });

  it("counts a missed tool and a foreign test command", () => {
    const s = scorePlan({ setup: [], lint: [], test: ["npm run lint"] }, { test: ["make test"] });
    expect(s).toMatchObject({ sameTool: 0, expectedTests: 1, missed: ["make test"], foreign: ["npm run lint"] });
  });
});
