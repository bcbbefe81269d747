import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { createCheckExec } from "../../src/app/create-check-exec.js";
import { readEnv } from "../../src/config/env.js";
import { checkRequestShape, runCheckCommand } from "../../src/checks/run-check-command.js";
import { createExec } from "../../src/exec/create-exec.js";
import { descendants } from "../../src/exec/kill-tree.js";
import { handoverLine, WAITING_STUB } from "../../src/exec/sandbox-ahead.js";
import type { Exec } from "../../src/exec/types.js";
import { bubblewrapJobExec } from "../helpers/bubblewrap-job-exec.js";
import { CLI_MAIN } from "../helpers/cli-entry.js";
import { describeWith } from "../helpers/needs.js";
import { pidsWithArg, survivorsOf, uniqueSleep } from "../helpers/process-probe.js";
import { pollUntil, waitUntil } from "../helpers/wait-until.js";

const host = createExec({ sourceEnv: process.env });

describe("handoverLine", () => {
  it("hands the stub exactly the words, whatever quotes, newlines, backslashes and variables they hold", async () => {
    const words = ["it's", "two\nlines", "back\\slash", "$HOME", '"q"', "", " spaced ", "'\n'"];
    const waiting = host.startWaiting!({ command: WAITING_STUB[0]!, args: WAITING_STUB.slice(1), cwd: "/" });
    const r = await waiting.hand(handoverLine(["printf", "<%s>\\n", ...words]), { timeoutMs: 30_000 });
    expect(r?.exitCode).toBe(0);
    expect(r?.stdout).toBe(words.map((w) => `<${w}>\n`).join(""));
  });

  it("a process that ended before the handover is not handed anything (the caller runs the request itself)", async () => {
    const waiting = host.startWaiting!({ command: "/bin/sh", args: ["-c", "exit 0"], cwd: "/" });
    await waiting.discard();
    expect(await waiting.hand("'true'", {})).toBeNull();
  });
});

describe("a process waiting ahead", () => {
  it("does not keep its Node process alive, and one awaiting its discard sees it end first", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "waiting-"));
    const n = uniqueSleep();
    const script = path.join(dir, "waits.mjs");
    // The built module, as a job process runs it (see spawn-helper.test.ts).
    const built = path.join(path.dirname(CLI_MAIN), "../exec/create-exec.js");
    await writeFile(
      script,
      [
        `const { createExec } = await import(${JSON.stringify(built)});`,
        `const exec = createExec({ sourceEnv: { PATH: process.env.PATH } });`,
        `const unused = exec.startWaiting({ command: "sh", args: ["-c", "read -r l <&3", "${n}"], cwd: "/" });`,
        `exec.startWaiting({ command: "sh", args: ["-c", "read -r l <&3", "${n}"], cwd: "/" });`,
        `await unused.discard();`,
        `console.log("ended");`,
      ].join("\n"),
    );
    try {
      const r = await host.run({ command: process.execPath, args: [script], cwd: dir, timeoutMs: 60_000 });
      expect(r.stdout).toBe("ended\n");
      expect(r.exitCode).toBe(0);
      // The other one, never discarded, ended with its Node process (no process of its own keeps it).
      expect(await survivorsOf(n)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** The arguments of a process (empty once it has gone). */
const argsOf = (pid: number): string[] => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(0, -1);
  } catch {
    return [];
  }
};

/** The parent of a process (0 once it has gone). */
const parentOf = (pid: number): number => {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[1]);
  } catch {
    return 0;
  }
};

/**
 * Host pids of the waiting stubs of sandboxes for `checkout` (the shell whose command line is exactly the stub's,
 * under a bwrap whose arguments name that folder): other tests' sandboxes are not this test's.
 */
const stubs = (checkout: string): number[] =>
  pidsWithArg("aider-sandbox-ahead").filter(
    (pid) => argsOf(pid).join("\0") === WAITING_STUB.join("\0") && argsOf(parentOf(pid)).includes(checkout),
  );

/** Host pids of the bwrap processes of sandboxes for `checkout` set up ahead. */
const bwrapsFor = (checkout: string): number[] =>
  pidsWithArg("aider-sandbox-ahead").filter((pid) => argsOf(pid)[0] === "bwrap" && argsOf(pid).includes(checkout));

/** A process's start time since boot (clock ticks; the same in every PID namespace). */
const startTicks = (pid: number): string => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[19]!;

/** Prints the start time of the command's own shell first: equal to the stub's when the command ran in its place. */
const SELF_TICKS = `cut -d' ' -f22 /proc/$$/stat`;

/** Whether a process runs (a zombie waiting to be reaped does not). */
const alive = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]![0] !== "Z";
  } catch {
    return false;
  }
};

describeWith("bubblewrap", "sandboxes started ahead of their commands (real bubblewrap)", () => {
  let root: string;
  let checkout: string;
  const open: Exec[] = [];
  /** As bubblewrapJobExec, over another exec. */
  const checkExecOver = (below: Exec, network: string) =>
    createCheckExec(
      readEnv({
        AIDER_BOT_SANDBOX: "bubblewrap",
        AIDER_BOT_WORK_DIR: path.join(root, "work"),
        AIDER_BOT_CACHE_DIR: path.join(root, "cache"),
        AIDER_BOT_SANDBOX_NETWORK: network,
      }),
      below,
      pino({ level: "silent" }),
      { appDir: path.join(root, "app") },
    );
  const jobExec = (network: "none" | "registries" = "none", exec?: Exec) => {
    const e = exec ?? bubblewrapJobExec(root, process.env, { AIDER_BOT_SANDBOX_NETWORK: network });
    open.push(e);
    return e;
  };
  const target = () => ({ image: "-", imageSource: "-", checkout, cacheKey: "octo/widgets" });
  /** The job's first check's sandbox, set up as the run's coder asks for it; its stub's pid once it waits. */
  const readyStub = async (e: Exec, others: readonly number[] = []) => {
    e.useContainer!(target());
    e.prestart!(checkRequestShape(checkout));
    let pid: number | undefined;
    await waitUntil(
      () => (pid = stubs(checkout).find((p) => !others.includes(p))) !== undefined,
      "a sandbox set up ahead, waiting",
    );
    return pid!;
  };

  let other: Exec;
  beforeAll(async () => {
    // Under the project folder, not /tmp, which the sandbox replaces with a private one.
    root = await mkdtemp(path.join(process.cwd(), ".sandbox-ahead-"));
    // Another job's sandbox waits beside every test's (as other test files' may): never this test's to take or count.
    const elsewhere = path.join(root, "elsewhere");
    await mkdir(path.join(elsewhere, ".git"), { recursive: true });
    other = bubblewrapJobExec(root, process.env, { AIDER_BOT_SANDBOX_NETWORK: "none" });
    other.useContainer!({ image: "-", imageSource: "-", checkout: elsewhere, cacheKey: "octo/other" });
    other.prestart!(checkRequestShape(elsewhere));
    await waitUntil(() => stubs(elsewhere).length === 1, "another job's sandbox, waiting");
  });
  beforeEach(async () => {
    checkout = path.join(root, `checkout-${Math.random().toString(36).slice(2)}`);
    await mkdir(path.join(checkout, ".git"), { recursive: true });
  });
  afterEach(async () => {
    for (const e of open.splice(0)) await e.close?.();
  });
  afterAll(async () => {
    await other.close!();
    await rm(root, { recursive: true, force: true });
  });

  it.each(["none", "registries"] as const)(
    "runs the first check in the sandbox set up ahead, with the environment, descriptors, output and exit code of a fresh one (network %s)",
    async (network) => {
      const script = [
        SELF_TICKS,
        `echo "0=$0 n=$#"`,
        `env | sort | grep -v '^_='`,
        `ls /proc/self/fd`,
        `grep -E '^(Uid|Gid|CapEff|NoNewPrivs|Seccomp|SigIgn|SigBlk):' /proc/self/status`,
        `ls -a "$HOME" /tmp; touch "$HOME/h" /tmp/t .git/x 2>&1 | sed 's/.*\\.git/.git/'`,
        `echo to-stderr >&2`,
        `exit 3`,
      ].join("\n");
      const e = jobExec(network);
      const stub = await readyStub(e);
      const stubTicks = startTicks(stub);
      const ahead = await runCheckCommand(e, { kind: "test", command: script, cwd: checkout, timeoutMs: 60_000 });
      const [ticks, ...rest] = ahead.output.split("\n");
      expect(ticks).toBe(stubTicks);

      // The same job's sandbox, made the old way: the exec below cannot start a process ahead.
      const fresh = jobExec(network, checkExecOver({ run: (req) => host.run(req) }, network));
      fresh.useContainer!(target());
      const before = await runCheckCommand(fresh, {
        kind: "test",
        command: script.replace(SELF_TICKS, "echo -"),
        cwd: checkout,
        timeoutMs: 60_000,
      });
      // Folders of two jobs' homes, and descriptors' inode numbers, differ by name only.
      const same = (text: string) => text.replace(/aider-bot-job-\d+-env-\w+/g, "JOB");
      expect(ahead.exitCode).toBe(3);
      expect(before.exitCode).toBe(3);
      expect(same(rest.join("\n"))).toBe(same(before.output.split("\n").slice(1).join("\n")));
      expect(ahead.output).toContain("to-stderr");
      expect(ahead.output).toMatch(/\.git\/x'?: Read-only file system/);
      expect(alive(stub)).toBe(false);
    },
  );

  it("starts the next command's sandbox while a command runs, and ends an unused one with the job, leaving no process", async () => {
    const e = jobExec("registries");
    const first = await readyStub(e);
    const r = await runCheckCommand(e, { kind: "lint", command: "true", cwd: checkout, timeoutMs: 60_000 });
    expect(r.ok).toBe(true);
    await waitUntil(() => stubs(checkout).some((p) => p !== first), "the next sandbox");
    const bwraps = bwrapsFor(checkout);
    expect(bwraps.length).toBeGreaterThan(1);
    open.splice(open.indexOf(e), 1);
    await e.close!();
    // Killed, a sandbox's init may be reaped a moment after bwrap's end.
    expect(await pollUntil(() => bwraps.filter(alive).length === 0, 5_000)).toBe(true);
    expect(stubs(checkout)).toEqual([]);
  });

  it("a cancelled command kills the sandbox it was handed to, with everything in it", async () => {
    const e = jobExec("registries");
    const stub = await readyStub(e);
    const marker = uniqueSleep();
    const stop = new AbortController();
    const running = runCheckCommand(e, {
      kind: "test",
      command: `sleep ${marker}`,
      cwd: checkout,
      timeoutMs: 60_000,
      signal: stop.signal,
    });
    await waitUntil(() => pidsWithArg(marker).length > 0, "the command's sleep");
    // It runs in the sandbox set up ahead: its process is the stub's, or one the stub's started.
    expect([stub, ...descendants(stub)]).toEqual(expect.arrayContaining(pidsWithArg(marker)));
    stop.abort();
    const r = await running;
    expect(r.ok).toBe(false);
    expect(r.output).toMatch(/killed by SIGKILL/);
    expect(await survivorsOf(marker)).toEqual([]);
    expect(await pollUntil(() => !alive(stub), 5_000)).toBe(true);
  });

  it("a command handed over still times out, and its sandbox is killed", async () => {
    const e = jobExec();
    const stub = await readyStub(e);
    const marker = uniqueSleep();
    const r = await runCheckCommand(e, { kind: "test", command: `sleep ${marker}`, cwd: checkout, timeoutMs: 1_000 });
    expect(r.timedOut).toBe(true);
    expect(await survivorsOf(marker)).toEqual([]);
    expect(alive(stub)).toBe(false);
  });

  it("a checkout folder replaced since its sandbox was set up is not run in that sandbox", async () => {
    const e = jobExec();
    const stub = await readyStub(e);
    await rename(checkout, `${checkout}-old`);
    await mkdir(path.join(checkout, ".git"), { recursive: true });
    await writeFile(path.join(checkout, "mark"), "the new folder\n");
    const r = await runCheckCommand(e, { kind: "test", command: "cat mark", cwd: checkout, timeoutMs: 60_000 });
    expect(r.output.trim()).toBe("the new folder");
    expect(await waitUntil(() => !alive(stub), "the stale sandbox ended")).toBeUndefined();
  });

  it("a background command (the base's) does not take the sandbox waiting for the run's own checks", async () => {
    const e = jobExec();
    const stub = await readyStub(e);
    const stubTicks = startTicks(stub);
    const r = await e.run({ ...checkRequestShape(checkout), command: SELF_TICKS, priority: "background" });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).not.toBe(stubTicks);
    expect(r.ahead).toBeUndefined();
    expect(stubs(checkout)).toContain(stub);
    // The run's own check takes it, and says so (the check exec's log line carries it).
    const own = await e.run({ ...checkRequestShape(checkout), command: SELF_TICKS });
    expect([own.stdout.trim(), own.ahead]).toEqual([stubTicks, true]);
  });
});
