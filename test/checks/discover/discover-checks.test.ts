import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { discoverChecks } from "../../../src/checks/discover/discover-checks.js";
import { checkPlanJson } from "../../../src/checks/discover/render-check-plan.js";
import { createLocalRepoReader } from "../../../src/workspace/local-repo-reader.js";
import { runCli } from "../../helpers/run-cli.js";

const CORPUS = path.resolve("test/fixtures/checks/discover");
const cases = readdirSync(CORPUS).sort();

/**
 * The corpus: repositories written in the shapes public ones use (matrices with include/exclude, format(),
 * working-directory, multi-line run, composite actions, reusable workflows, make/just/tox/nox wrappers, monorepos,
 * deploy jobs with secrets, services), each with the plan it must give (expected.json).
 */
describe("check discovery corpus", () => {
  it("has the shapes the issue names", () => {
    expect(cases).toEqual(
      expect.arrayContaining([
        "python-matrix",
        "node-workdir",
        "composite-reusable",
        "wrappers",
        "monorepo",
        "tox-flake8",
        "conventions-node",
        "conventions-python",
        "makefile-only",
        "cargo-release",
      ]),
    );
  });

  it.each(cases)("%s: the pure module gives the expected plan", async (name) => {
    const expected: unknown = JSON.parse(readFileSync(path.join(CORPUS, name, "expected.json"), "utf8"));
    const plan = await discoverChecks(createLocalRepoReader(path.join(CORPUS, name, "repo")));
    expect(checkPlanJson(plan)).toEqual(expected);
  });

  it.each(cases)("%s: `aider-bot checks --json` prints the same plan", async (name) => {
    const expected: unknown = JSON.parse(readFileSync(path.join(CORPUS, name, "expected.json"), "utf8"));
    const out = await runCli(["checks", path.join(CORPUS, name, "repo"), "--json"]);
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual(expected);
  });
});
