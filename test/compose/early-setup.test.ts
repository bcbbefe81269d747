import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createCheckoutCoder } from "../../src/compose/checkout-coder.js";
import { createCoderDeps } from "../../src/compose/create-coder-deps.js";
import type { CheckCommandSpec, CoderResult } from "../../src/coder/types.js";
import type { Exec, SandboxMode } from "../../src/exec/types.js";
import { createLlmClient } from "../../src/llm/create-llm-client.js";
import type { CheckoutWork } from "../../src/run/checkout-work.js";
import { createSecretRedactor } from "../../src/security/redact-secrets.js";
import { createGit } from "../../src/workspace/create-git.js";
import { startScriptedLlmServer, type FixedReply, type ScriptedLlmServer } from "#testkit/scripted-llm-server.js";
import { coderOptions } from "../coder/helpers/fake-deps.js";
import { testExec } from "../helpers/test-exec.js";
import { pollUntil, waitUntil } from "../helpers/wait-until.js";

/**
 * The change's setup commands start while the model writes (startEarlySetup, wired by createCheckoutCoder), through
 * the real check runner, in a real git checkout, with a scripted model server: a fake `npm` on the PATH records each
 * run (what package.json and the edited source said when it started, its pid) and creates `node_modules/`.
 */
describe("the change's setup starts while the model writes", () => {
  let root: string;
  let bin: string;
  let server: ScriptedLlmServer | null = null;
  const works: CheckoutWork[] = [];
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "early-setup-"));
    bin = path.join(root, "bin");
    await mkdir(bin);
    // Run in a fixture's checkout: logs `start <pid> <package.json's version> <src/index.js's value>` and `end <pid>`
    // beside it, and creates node_modules/.
    await writeFile(
      path.join(bin, "npm"),
      [
        "#!/bin/sh",
        `version=$(sed -n 's/.*"version": "\\(.*\\)".*/\\1/p' package.json)`,
        `value=$(sed -n 's/.*value = \\(.*\\);/\\1/p' src/index.js)`,
        'echo "start $$ $version $value" >> ../npm.log',
        "if [ -e ../block ] && [ ! -e ../first ]; then : > ../first; while [ ! -e ../go ]; do sleep 0.05; done; fi",
        "mkdir -p node_modules/dep && echo 'module.exports = 1;' > node_modules/dep/index.js",
        'echo "end $$" >> ../npm.log',
        "if [ -e ../fails ]; then echo 'npm ERR! 404 Not Found - left-pad@9.9.9' >&2; exit 1; fi",
        "",
      ].join("\n"),
    );
    await chmod(path.join(bin, "npm"), 0o755);
  });
  afterEach(async () => {
    for (const w of works.splice(0)) w.stop();
    await server?.close();
    server = null;
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  const exec = testExec({ sourceEnv: { PATH: process.env.PATH, HOME: os.tmpdir() } });
  // The repository's commands find the fake npm first.
  const checkRun = () => testExec({ sourceEnv: { PATH: `${bin}:${process.env.PATH}`, HOME: os.tmpdir() } });
  const git = createGit(exec, { name: "Test", email: "test@example.com" });
  let n = 0;

  /**
   * A checkout (committed; node_modules not ignored) in a folder of its own, beside the log of the fake npm (see
   * beforeAll) and the files that steer it: `fails`, `block` (its first run waits for a `go` file).
   */
  async function fixture(opts: { pkg?: object; fails?: boolean; block?: boolean } = {}) {
    const dir = path.join(root, `case-${++n}`);
    const checkout = path.join(dir, "checkout");
    const log = path.join(dir, "npm.log");
    await mkdir(path.join(checkout, "src"), { recursive: true });
    await writeFile(
      path.join(checkout, "package.json"),
      JSON.stringify(opts.pkg ?? { name: "demo", version: "1.0.0" }, null, 2) + "\n",
    );
    await writeFile(path.join(checkout, "src/index.js"), "export const value = 1;\n");
    await git.run(dir, ["init", "--quiet", checkout]);
    await git.run(checkout, ["add", "."]);
    await git.run(checkout, ["commit", "--quiet", "-m", "base"]);
    if (opts.fails) await writeFile(path.join(dir, "fails"), "");
    if (opts.block) await writeFile(path.join(dir, "block"), "");
    const lines = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").filter(Boolean) : []);
    return { dir, checkout, lines, starts: () => lines().filter((l) => l.startsWith("start ")) };
  }

  function coderFor(
    mode: SandboxMode = "off",
    told: { skipped: string[]; started: string[] } = { skipped: [], started: [] },
    calls?: string[],
  ) {
    const inner = checkRun();
    const checkExec: Exec = {
      run: (req) => (calls?.push(`run ${req.label ?? req.command}`), inner.run(req)),
      sandboxMode: async () => mode,
      ...(calls ? { prestart: (shape) => void calls.push(`prestart ${shape.cwd} ${JSON.stringify(shape.env)}`) } : {}),
    };
    const llm = createLlmClient({ baseUrl: server!.baseUrl, apiKey: "test", redact: createSecretRedactor().redact });
    return createCheckoutCoder({
      owner: "acme",
      repo: "web",
      llm,
      exec,
      checkExec,
      git,
      cacheRoot: path.join(root, "cache"),
      gitContentIds: false,
      baseline: async () => null,
      earlySetup: {
        onStart: (spec) => void told.started.push(spec.command),
        onSkip: (spec, why) => void told.skipped.push(`${spec.command}: ${why}`),
        onError: (error) => {
          throw error;
        },
      },
    });
  }

  const editValue = (to: number) =>
    [
      "src/index.js",
      "```js",
      "<<<<<<< SEARCH",
      "export const value = 1;",
      "=======",
      `export const value = ${to};`,
      ">>>>>>> REPLACE",
      "```",
      "",
    ].join("\n");
  const editVersion = [
    "package.json",
    "```json",
    "<<<<<<< SEARCH",
    '  "version": "1.0.0"',
    "=======",
    '  "version": "2.0.0"',
    ">>>>>>> REPLACE",
    "```",
    "",
  ].join("\n");
  const setup: CheckCommandSpec = { kind: "setup", command: "npm ci", source: "ci.yml" };
  const test: CheckCommandSpec = { kind: "test", command: "true", source: "ci.yml" };
  const options = (files = ["src/index.js"]) =>
    coderOptions({ files, autoTest: true, checkCommands: [setup, test], commandTimeoutMs: 30_000 });

  async function run(
    coder: ReturnType<typeof createCheckoutCoder>,
    checkout: string,
    files?: string[],
    signal = new AbortController().signal,
  ): Promise<{ result: CoderResult; events: { kind: string; check?: string; ok?: boolean; output?: string }[] }> {
    const events: { kind: string; check?: string; ok?: boolean; output?: string }[] = [];
    const result = await coder(checkout, options(files), {
      onProgress: () => undefined,
      signal,
      onTranscript: (e) => void events.push(e as (typeof events)[number]),
      keep: (w) => void works.push(w),
    });
    await Promise.all(works.map((w) => w.done));
    return { result, events };
  }

  it("starts `npm ci` before the model answers, and the check stage uses its result: npm runs once", async () => {
    const f = await fixture();
    // The model answers only once the setup has been seen to start (before: it started after the answer).
    const startedFirst = pollUntil(() => f.starts().length > 0, 15_000);
    server = await startScriptedLlmServer([
      { after: startedFirst, reply: editValue(2) } as FixedReply,
      { after: startedFirst, reply: "Done." } as FixedReply,
    ]);
    const { result, events } = await run(coderFor(), f.checkout);
    expect(await startedFirst).toBe(true);
    expect(result.outcome).toBe("changed");
    // Once, before the edit (it saw value 1), and reported as a setup check that passed.
    expect(f.starts()).toEqual([expect.stringMatching(/^start \d+ 1\.0\.0 1$/)]);
    expect(events.filter((e) => e.kind === "check").map((e) => [e.check, e.ok])).toEqual([
      ["setup", true],
      ["test", true],
    ]);
    // What setup created is in the checkout, and in nothing the run committed or showed the model.
    expect(existsSync(path.join(f.checkout, "node_modules/dep/index.js"))).toBe(true);
    const committed = (await git.run(f.checkout, ["show", "--name-only", "--format=", "HEAD"])).stdout.trim();
    expect(committed).toBe("src/index.js");
    for (const r of server.requests) expect(JSON.stringify(r.body)).not.toContain("node_modules");
  });

  it("asks the check exec for the first check's sandbox ahead, in the checkout's folder, before any command runs", async () => {
    const f = await fixture();
    server = await startScriptedLlmServer([editValue(2), "Done."]);
    const calls: string[] = [];
    const { result } = await run(coderFor("off", undefined, calls), f.checkout);
    expect(result.outcome).toBe("changed");
    expect(calls[0]).toBe(`prestart ${f.checkout} {"PYTHONDONTWRITEBYTECODE":"1"}`);
    expect(calls.slice(1)).toEqual(["run npm ci", "run true"]);
  });

  it("an edit to package.json makes the early result stale: the early run is killed and its end awaited, and setup runs again after the edit", async () => {
    const f = await fixture({ block: true });
    const startedFirst = pollUntil(() => f.starts().length > 0, 15_000);
    server = await startScriptedLlmServer([{ after: startedFirst, reply: editVersion } as FixedReply, "Done."]);
    const { result, events } = await run(coderFor(), f.checkout, ["package.json"]);
    expect(await startedFirst).toBe(true);
    expect(result.outcome).toBe("changed");
    const [first, second] = f.starts();
    expect(first).toMatch(/^start \d+ 1\.0\.0 1$/);
    // The second run saw the edited package.json; the first never reached its end (killed, blocked as it was).
    expect(second).toMatch(/^start \d+ 2\.0\.0 1$/);
    const firstPid = first!.split(" ")[1];
    expect(f.lines()).not.toContain(`end ${firstPid}`);
    expect(f.lines().at(-1)).toBe(`end ${second!.split(" ")[1]}`);
    expect(events.filter((e) => e.kind === "check" && e.check === "setup").map((e) => e.ok)).toEqual([true]);
  });

  it("a package.json with an install lifecycle script starts nothing early: setup runs once, after the edit", async () => {
    const f = await fixture({ pkg: { name: "demo", version: "1.0.0", scripts: { postinstall: "node build.js" } } });
    const skipped: string[] = [];
    const told = { skipped, started: [] as string[] };
    server = await startScriptedLlmServer([
      { after: pollUntil(() => skipped.length > 0, 15_000), reply: editValue(2) } as FixedReply,
      "Done.",
    ]);
    const { result } = await run(coderFor("off", told), f.checkout);
    expect(result.outcome).toBe("changed");
    expect(skipped).toEqual(["npm ci: package.json runs the repository's code on install (postinstall)"]);
    expect(told.started).toEqual([]);
    expect(f.starts()).toEqual([expect.stringMatching(/^start \d+ 1\.0\.0 2$/)]);
  });

  it("a failed early setup is the run's setup failure, reported as one", async () => {
    const f = await fixture({ fails: true });
    const startedFirst = pollUntil(() => f.starts().length > 0, 15_000);
    server = await startScriptedLlmServer([{ after: startedFirst, reply: editValue(2) } as FixedReply]);
    const { result, events } = await run(coderFor(), f.checkout);
    expect(await startedFirst).toBe(true);
    expect(result.outcome).toBe("checks-failed");
    expect(result.outcome === "checks-failed" && result.report.output).toContain("npm ERR! 404");
    expect(f.starts()).toHaveLength(1);
    const checks = events.filter((e) => e.kind === "check");
    expect(checks.map((e) => [e.check, e.ok])).toEqual([["setup", false]]);
  });

  it("a cancelled job kills the early setup: its process is gone when the run's work is over", async () => {
    const f = await fixture({ block: true });
    const stop = new AbortController();
    server = await startScriptedLlmServer([{ hangMs: 60_000 }]);
    const running = run(coderFor(), f.checkout, undefined, stop.signal);
    await waitUntil(() => f.starts().length > 0, "the early npm started");
    const pid = Number(f.starts()[0]!.split(" ")[1]);
    stop.abort();
    const { result } = await running;
    expect(result.outcome).toBe("timed-out");
    expect(alive(pid)).toBe(false);
    expect(f.lines()).not.toContain(`end ${pid}`);
  });

  it("a command run early leaves the file list the run has read as it was: what it creates reaches no map of this round", async () => {
    const f = await fixture();
    server = await startScriptedLlmServer([]);
    const deps = createCoderDeps({
      root: f.checkout,
      exec,
      checkExec: checkRun(),
      git,
      llm: createLlmClient({ baseUrl: server.baseUrl, apiKey: "test", redact: createSecretRedactor().redact }),
      protectedPaths: [],
      gitContentIds: false,
    });
    const listed = ["package.json", "src/index.js"];
    expect(await deps.workspace.listFiles()).toEqual(listed);
    const npmCi = { kind: "setup" as const, command: "npm ci", files: [], timeoutMs: 30_000 };
    expect(await deps.runCheck({ ...npmCi, keepsListing: true })).toMatchObject({ ok: true });
    expect(existsSync(path.join(f.checkout, "node_modules/dep/index.js"))).toBe(true);
    expect(await deps.workspace.listFiles()).toEqual(listed);
    // Run at the check stage, a command renews the list (node_modules is not ignored in this checkout).
    expect(await deps.runCheck(npmCi)).toMatchObject({ ok: true });
    expect(await deps.workspace.listFiles()).toContain("node_modules/dep/index.js");
  });

  it("nothing starts early when the sandbox cannot run", async () => {
    const f = await fixture();
    const told = { skipped: [] as string[], started: [] as string[] };
    server = await startScriptedLlmServer([editValue(2)]);
    const { result } = await run(coderFor("unavailable: no bwrap", told), f.checkout);
    expect(result.outcome).toBe("changed");
    expect(told.started).toEqual([]);
    expect(f.starts()).toEqual([]);
  });
});

/** Whether a process runs: not gone, and not a zombie (a killed process whose parent died first waits for init). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}
