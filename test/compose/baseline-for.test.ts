import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { baselineFor, type ComposeRunInput } from "../../src/compose/compose-run.js";
import type { CoderOptions } from "../../src/coder/types.js";
import type { Exec, SandboxMode } from "../../src/exec/types.js";
import { createGit } from "../../src/workspace/create-git.js";
import { testExec } from "../helpers/test-exec.js";

/**
 * Which runs get a base run: every sandbox that runs the repository's commands (a container too, its base in a
 * container of its own), never a fork's pull request (its scripts must not reach the repository's package cache).
 */
describe("baselineFor: which runs compare their failures with the base", () => {
  const exec = testExec({ sourceEnv: process.env });
  const git = createGit(exec, { name: "t", email: "t@example.com" });
  let root: string;
  let checkout: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "baseline-for-"));
    checkout = path.join(root, "job", "checkout");
    await git.run(root, ["init", "--quiet", checkout]);
    await writeFile(path.join(checkout, "a.txt"), "a\n");
    await git.run(checkout, ["add", "."]);
    await git.run(checkout, ["commit", "--quiet", "-m", "base"]);
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  const options = {
    lintCommands: [],
    testCommand: "true",
    autoTest: true,
    commandTimeoutMs: 10_000,
  } as unknown as CoderOptions;
  const issue = { kind: "issue", number: 1, title: "t" };
  const forkPr = { kind: "pull-request", number: 2, isFork: true, headRef: "f", headSha: "x" };
  const inputFor = (mode: SandboxMode, target: object, seen: string[] = []): ComposeRunInput => {
    const checkExec: Exec = {
      run: (req) => exec.run(req),
      sandboxMode: async () => mode,
      forCheckout: (dir) => (seen.push(dir), { run: (req) => exec.run(req) }),
    };
    return {
      req: { owner: "acme", repo: "web", verb: "run", target, settings: {}, defaultBranch: "main" },
      settings: { sandbox: "auto" },
      checkExec,
      git,
      cacheRoot: path.join(root, "cache"),
      logger: pino({ level: "silent" }),
    } as unknown as ComposeRunInput;
  };

  it("a run whose commands run in a container gets a base run, through the exec of the base's own checkout", async () => {
    const seen: string[] = [];
    const run = await baselineFor(
      inputFor("container (image img:1, from the test)", issue, seen),
      checkout,
      options,
      new AbortController().signal,
    );
    expect(run).not.toBeNull();
    expect(await run!.lookup({ kind: "test", command: "true" })).toMatchObject({ ok: true });
    await run!.done;
    expect(seen).toEqual([path.join(root, "job", "base")]);
  });

  it("checks the base out as a repository of its own, so its commands can run git with only its folder mounted", async () => {
    const spec = {
      kind: "test" as const,
      command: 'test -d .git && git rev-parse HEAD && test -z "$(git status --porcelain)"',
    };
    const run = await baselineFor(
      inputFor("container (image img:1, from the test)", issue),
      checkout,
      { ...options, testCommand: spec.command },
      new AbortController().signal,
    );
    expect(await run!.lookup(spec)).toMatchObject({ ok: true });
    await run!.done;
    // Nothing of the base is registered in the run's checkout.
    expect((await git.run(checkout, ["worktree", "list", "--porcelain"])).stdout.trim().split("\n\n")).toHaveLength(1);
  });

  it.each<SandboxMode>(["container (image img:1, from the test)", "bubblewrap", "off"])(
    "a fork's pull request never gets one (%s)",
    async (mode) => {
      expect(await baselineFor(inputFor(mode, forkPr), checkout, options, new AbortController().signal)).toBeNull();
    },
  );

  it("nor does a run whose sandbox cannot run", async () => {
    expect(
      await baselineFor(inputFor("unavailable: no bwrap", issue), checkout, options, new AbortController().signal),
    ).toBeNull();
  });
});
