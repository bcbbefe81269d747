import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Socket } from "node:net";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { baselineFor, type ComposeRunInput } from "../../src/compose/compose-run.js";
import type { CoderOptions } from "../../src/coder/types.js";
import type { Exec, SandboxMode } from "../../src/exec/types.js";
import { createGit } from "../../src/workspace/create-git.js";
import { testExec } from "../helpers/test-exec.js";
import { waitUntil } from "../helpers/wait-until.js";

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
      forCheckout: (dir, other) => (seen.push(`${dir} ${other?.priority}`), { run: (req) => exec.run(req) }),
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

  it("a run whose commands run in a container gets a base run, through the exec of the base's own checkout, as background work", async () => {
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
    // As background work: in container mode, a container of lower CPU shares.
    expect(seen).toEqual([`${path.join(root, "job", "base")} background`]);
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

  it("stop() during the base's fetch kills it: the base run ends at once and leaves no git process behind", async () => {
    // A git host that takes the connection and never answers: the fetch for the merge-base waits on it.
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      // Read (and drop) the request, so the end of the connection is seen.
      socket.resume();
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const host = `127.0.0.1:${(server.address() as { port: number }).port}`;
    const url = `http://${host}/acme/web.git`;
    let connected = false;
    server.on("connection", () => (connected = true));
    try {
      git.adopt(checkout, url);
      const input = inputFor("bubblewrap", { kind: "pull-request", number: 3, isFork: false, headRef: "feature" });
      (input as { github: unknown }).github = { installationToken: async () => "ghs_test" };
      const errors: unknown[] = [];
      const run = await baselineFor(
        { ...input, logger: { warn: (e: unknown) => void errors.push(e) } } as unknown as ComposeRunInput,
        checkout,
        options,
        new AbortController().signal,
      );
      await waitUntil(() => connected, "the base's fetch reached the git host");
      expect(gitProcessesFor(host).length).toBeGreaterThan(0);
      run!.stop();
      // Before, this waited for the fetch's own timeout (five minutes).
      await run!.done;
      expect(gitProcessesFor(host)).toEqual([]);
      expect(await run!.lookup({ kind: "test", command: "true" })).toBeNull();
      // The stop is not an error of the base's.
      expect(errors).toEqual([]);
      await waitUntil(() => sockets.size === 0, "the git host's connection closed");
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("nor does a run whose sandbox cannot run", async () => {
    expect(
      await baselineFor(inputFor("unavailable: no bwrap", issue), checkout, options, new AbortController().signal),
    ).toBeNull();
  });
});

/** The processes whose command line names `host` (git's fetch and its transport), from /proc. */
function gitProcessesFor(host: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ");
      if (cmdline.includes(host)) found.push(`${pid} ${cmdline}`);
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}
