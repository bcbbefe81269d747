import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { readManifest, type ReplayCase } from "../../bench/replay/replay-case.js";
import { runReplay, type ReplayApp } from "../../bench/replay/run-replay.js";
import type { EditFormatName } from "../../src/edits/types.js";
import { sandboxWherePresent, startE2EApp, type E2EApp } from "../helpers/e2e-harness.js";
import { WAIT_MS } from "../helpers/timeouts.js";

/**
 * The replay benchmark's smoke test (`npm run bench replay` runs all of it): three real commits of real
 * repositories, each replayed once through the built app — the default branch at the commit's parent, a pull request
 * adding the commit's tests, `/aider <the commit's subject>`, the oracle model answering with the real change — with
 * the repository's own checks discovered and run (in bubblewrap where it works here). Each must end with the pushed
 * source files equal to the real commit's and the repository's tests passing on the pushed tree.
 */
const SMOKE: { id: string; format: EditFormatName; tool: string; green: boolean }[] = [
  // Its workflow's test step ends with `git diff --exit-code` over the tests' output files: green only because the
  // check sees the run's edits staged (it used to fail on the model's own edit).
  { id: "inih-498f34b", format: "diff", tool: "gcc", green: true },
  { id: "co-1d3cb91", format: "udiff", tool: "npm", green: true },
  { id: "humanize-402bd47", format: "patch", tool: "go", green: true },
];

/** A case's toolchain is missing here: the case is skipped with the reason (Go is not among the README's tools). */
const lacks = (tool: string) => spawnSync(tool, ["version"], { stdio: "ignore" }).error !== undefined;

describe("e2e: replaying real commits (smoke)", () => {
  let app: E2EApp;
  let replay: ReplayApp;
  let cases: ReplayCase[];
  let judgeHome: string;
  beforeAll(async () => {
    cases = (await readManifest()).cases;
    app = await startE2EApp({ env: sandboxWherePresent() });
    // A first scenario gives the handles of the app's fake GitHub and model; each case seeds its own repository.
    const e2e = await app.scenario({ files: { "README.md": "replay\n" }, permissions: {} });
    // A real repository's install and tests take longer than a fixture's: four waits for each run.
    replay = { fake: e2e.fake, llm: e2e.llm, send: e2e.send, idle: () => e2e.idle(WAIT_MS * 4) };
    judgeHome = await mkdtemp(path.join(os.tmpdir(), "replay-smoke-judge-"));
  });
  afterAll(async () => {
    await app?.close();
    if (judgeHome) await rm(judgeHome, { recursive: true, force: true });
  });

  for (const [i, s] of SMOKE.entries()) {
    const title = `${s.id} in ${s.format}: the pushed tree is the real commit and passes its tests`;
    (lacks(s.tool) ? it.skip : it)(
      lacks(s.tool) ? `${title} [skipped: ${s.tool} is not installed]` : title,
      async () => {
        const c = cases.find((x) => x.id === s.id);
        if (!c) throw new Error(`no case ${s.id} in bench/replay/manifest.json`);
        const r = await runReplay(replay, c, s.format, "clean", i, judgeHome);
        expect({ solved: r.solved, why: r.why }).toEqual({ solved: true, why: "" });
        expect(r.pushed).toBe(true);
        expect(r.status).toContain("🚀 Pushed");
        // The checks were found in the repository itself (its workflow, package.json or Makefile).
        expect(r.status).toMatch(/\.github\/workflows\/|package\.json|Makefile|\.travis\.yml/);
        if (s.green) {
          expect({ checked: r.checked, checks: r.checks }).toMatchObject({ checked: true });
          expect(r.rounds).toBe(1);
        }
      },
      WAIT_MS * 10,
    );
  }
});
