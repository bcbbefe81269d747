import type { CheckReport } from "../../../src/checks/types.js";
import type { CheckCommandSpec } from "../../../src/coder/types.js";
import { startEarlySetup, type EarlySetupDeps } from "../../../src/run/prepare/early-setup.js";
import { waitUntil } from "../../helpers/wait-until.js";

/** A command the test ends: `finish(ok)`, or killed through its signal (then it ends as a cancelled report). */
interface Started {
  spec: CheckCommandSpec;
  signal: AbortSignal;
  finish(ok: boolean): void;
  ended: boolean;
}

function rig(files: Record<string, string> = {}, extra: Partial<EarlySetupDeps> = {}) {
  const started: Started[] = [];
  const holds = { held: 0, released: 0 };
  const job = new AbortController();
  const deps: EarlySetupDeps = {
    ready: Promise.resolve(),
    available: async () => true,
    read: async (rel) => files[rel] ?? null,
    run: (spec, signal) =>
      new Promise<CheckReport>((resolve) => {
        const entry: Started = {
          spec,
          signal,
          ended: false,
          finish: (ok) => {
            entry.ended = true;
            resolve({
              kind: "test",
              command: spec.command,
              ok,
              exitCode: ok ? 0 : 1,
              output: ok ? "ok" : "failed",
              locations: [],
            });
          },
        };
        signal.addEventListener("abort", () => {
          entry.ended = true;
          resolve({
            kind: "test",
            command: spec.command,
            ok: false,
            exitCode: null,
            output: "cancelled",
            locations: [],
            environmentError: true,
          });
        });
        started.push(entry);
      }),
    hold: () => {
      holds.held++;
      return () => void holds.released++;
    },
    signal: job.signal,
    onError: (error) => {
      throw error;
    },
    ...extra,
  };
  return { deps, started, holds, job };
}

const setup = (command: string, extra: Partial<CheckCommandSpec> = {}): CheckCommandSpec => ({
  kind: "setup",
  command,
  ...extra,
});
const test: CheckCommandSpec = { kind: "test", command: "npm test" };
const plainPkg = { "package.json": JSON.stringify({ name: "x" }) };

describe("startEarlySetup", () => {
  it("the check stage takes the early report, awaiting it while it runs; the base is held meanwhile", async () => {
    const { deps, started, holds } = rig(plainPkg);
    const early = startEarlySetup([setup("npm ci"), test], deps);
    await waitUntil(() => started.length === 1, "npm ci started");
    expect(holds).toEqual({ held: 1, released: 0 });
    const taken = early.take(setup("npm ci"), [{ path: "src/index.js" }]);
    started[0]!.finish(true);
    expect(await taken).toMatchObject({ ok: true, command: "npm ci" });
    await early.done;
    expect(holds).toEqual({ held: 1, released: 1 });
    // Taken once: asked again, the command runs at the check stage.
    expect(await early.take(setup("npm ci"), [])).toBeNull();
  });

  it("an edit about to reach its inputs kills the command under way, and the write waits for its end", async () => {
    const { deps, started } = rig(plainPkg);
    const early = startEarlySetup([setup("npm ci"), test], deps);
    await waitUntil(() => started.length === 1, "npm ci started");
    // An edit of the source leaves it running.
    await early.beforeWrite([{ path: "src/index.js" }]);
    expect(started[0]!.signal.aborted).toBe(false);
    await early.beforeWrite([{ path: "package-lock.json", created: true }]);
    expect(started[0]!.signal.aborted).toBe(true);
    expect(started[0]!.ended).toBe(true);
    expect(await early.take(setup("npm ci"), [{ path: "package-lock.json", created: true }])).toBeNull();
    await early.done;
    expect(started).toHaveLength(1);
  });

  it("a change the check stage names (and the apply did not announce) still makes the result stale", async () => {
    const { deps, started } = rig(plainPkg);
    const early = startEarlySetup([setup("npm ci"), test], deps);
    await waitUntil(() => started.length === 1, "npm ci started");
    started[0]!.finish(true);
    expect(await early.take(setup("npm ci"), [{ path: "package.json" }])).toBeNull();
  });

  it("only the plan's first setup commands that read manifests only; from the first that does not, the check stage's", async () => {
    const skipped: string[] = [];
    const { deps, started } = rig(
      { "package.json": JSON.stringify({ scripts: { prepare: "tsc" } }), "go.mod": "module x\n" },
      { onSkip: (spec, why) => void skipped.push(`${spec.command}: ${why}`) },
    );
    const specs = [
      setup("pip install --user uv", { tool: { name: "uv", requirement: "uv" } }),
      setup("npm ci"),
      setup("go mod download"),
      test,
    ];
    const early = startEarlySetup(specs, deps);
    await waitUntil(() => started.length === 1, "the tool install started");
    started[0]!.finish(true);
    await early.done;
    expect(started.map((s) => s.spec.command)).toEqual(["pip install --user uv"]);
    expect(skipped).toEqual(["npm ci: package.json runs the repository's code on install (prepare)"]);
    expect(await early.take(specs[0]!, [])).toMatchObject({ ok: true });
    expect(await early.take(specs[1]!, [])).toBeNull();
    expect(await early.take(specs[2]!, [])).toBeNull();
  });

  it("stops at a failed command, as the check stage does: the next one is not run early", async () => {
    const { deps, started } = rig({ ...plainPkg, "requirements.txt": "pytest\n" });
    const specs = [setup("npm ci"), setup("pip install -r requirements.txt"), test];
    const early = startEarlySetup(specs, deps);
    await waitUntil(() => started.length === 1, "npm ci started");
    started[0]!.finish(false);
    expect(await early.take(specs[0]!, [])).toMatchObject({ ok: false, output: "failed" });
    await early.done;
    expect(started).toHaveLength(1);
    expect(await early.take(specs[1]!, [])).toBeNull();
  });

  it("starts nothing where the sandbox cannot run, and a cancelled job kills the command under way", async () => {
    const off = rig(plainPkg, { available: async () => false });
    const none = startEarlySetup([setup("npm ci"), test], off.deps);
    await none.done;
    expect(off.started).toEqual([]);
    expect(await none.take(setup("npm ci"), [])).toBeNull();

    const { deps, started, job, holds } = rig(plainPkg);
    const early = startEarlySetup([setup("npm ci"), test], deps);
    await waitUntil(() => started.length === 1, "npm ci started");
    job.abort();
    await early.done;
    expect(started[0]!.signal.aborted).toBe(true);
    expect(holds).toEqual({ held: 1, released: 1 });
  });
});
