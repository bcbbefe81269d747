import { parseReplayArgs } from "../../bench/replay/replay-args.js";
import type { ReplayCase } from "../../bench/replay/replay-case.js";
import { planRuns } from "../../bench/replay/replay-plan.js";
import { overheadByCache, untestedMiss } from "../../bench/replay-bench.js";
import type { ReplayResult } from "../../bench/replay/run-replay.js";

const kase = (id: string, repo: string): ReplayCase => ({
  id,
  repo,
  commit: "0".repeat(40),
  ecosystem: "go",
  licence: "LICENSE",
  tests: [],
  source: [],
  judge: { setup: [], test: [] },
});

const uuidA = kase("uuid-a", "google/uuid");
const uuidB = kase("uuid-b", "google/uuid");
const co = kase("co-a", "tj/co");

describe("the replay bench's runs and their repositories", () => {
  it("gives the runs of one repository one name, so only its first run finds the app's caches cold", () => {
    const runs = planRuns([uuidA, uuidB, co], ["diff", "whole"], ["clean"], { repeat: 1, cold: false });
    expect(runs.map((r) => [r.case.id, r.format, r.name, r.cache])).toEqual([
      ["uuid-a", "diff", "replay-uuid", "cold"],
      ["uuid-a", "whole", "replay-uuid", "warm"],
      ["uuid-b", "diff", "replay-uuid", "warm"],
      ["uuid-b", "whole", "replay-uuid", "warm"],
      ["co-a", "diff", "replay-co", "cold"],
      ["co-a", "whole", "replay-co", "warm"],
    ]);
  });

  it("repeats each run in a row with the same noise seed, so one case shows its cold and warm time side by side", () => {
    const runs = planRuns([co], ["diff"], ["clean", "noisy"], { repeat: 2, cold: false });
    expect(runs.map((r) => [r.variant, r.cache, r.seed])).toEqual([
      ["clean", "cold", 0],
      ["clean", "warm", 0],
      ["noisy", "warm", 0],
      ["noisy", "warm", 0],
    ]);
  });

  it("with --cold gives every run a repository of its own", () => {
    const runs = planRuns([uuidA, uuidB], ["diff"], ["clean"], { repeat: 2, cold: true });
    expect(new Set(runs.map((r) => r.name)).size).toBe(4);
    expect(runs.every((r) => r.cache === "cold")).toBe(true);
  });

  it("reads --repeat and --cold, and refuses a repeat that is not a whole number ≥ 1", () => {
    expect(parseReplayArgs(["--repeat", "2", "--cold"])).toMatchObject({ repeat: 2, cold: true });
    expect(parseReplayArgs([])).toMatchObject({ repeat: 1, cold: false });
    expect(() => parseReplayArgs(["--repeat=0"])).toThrow(/--repeat: give a whole number of runs, 1 or more/);
    expect(() => parseReplayArgs(["--repeat", "two"])).toThrow(/--repeat/);
  });

  it("prints the overhead of cold and warm solved clean runs apart", () => {
    const result = (cache: "cold" | "warm", botMs: number, solved = true): ReplayResult =>
      ({ variant: "clean", cache, solved, botMs, setupMs: 1000, testMs: 1000 }) as ReplayResult;
    const rows = overheadByCache([
      result("cold", 8000),
      result("cold", 6000),
      result("warm", 3000),
      result("warm", 2000),
      result("warm", 9000, false),
    ]);
    expect(rows.map((r) => [r.cache, r.runs])).toEqual([
      ["cold", 2],
      ["warm", 2],
      ["all", 4],
    ]);
    expect(rows[0]!.median).toBeGreaterThan(rows[1]!.median);
  });

  it("names apart an unsolved run whose pushed tree passes the repository's tests: what it left out no test covers", () => {
    const run = (solved: boolean, testsPass: boolean, sourceEqual: boolean) =>
      ({ variant: "noisy", noise: "missing", solved, testsPass, sourceEqual }) as ReplayResult;
    expect(untestedMiss(run(false, true, false))).toBe(true);
    // Tests failing on the pushed tree: a check could have seen it, so it is the bot's miss.
    expect(untestedMiss(run(false, false, false))).toBe(false);
    expect(untestedMiss(run(true, true, true))).toBe(false);
  });
});
