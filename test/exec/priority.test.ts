import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createExec } from "../../src/exec/create-exec.js";
import { BACKGROUND_NICE, priorityArgv } from "../../src/exec/priority.js";
import { createSandboxedExec } from "../../src/exec/sandbox.js";
import type { Exec, ExecRequest } from "../../src/exec/types.js";
import { itWith } from "../helpers/needs.js";
import { testExec } from "../helpers/test-exec.js";
import { waitUntil } from "../helpers/wait-until.js";

/**
 * What a process of the command's tree sees of its own priority: its nice value (field 19 of /proc/self/stat, read
 * by a `cat` the command started, so it is inherited) and its session's autogroup (`/autogroup-N nice K`).
 */
const PROBE = "cat /proc/self/stat; cat /proc/self/autogroup 2>/dev/null || echo no-autogroup";

function priorityOf(output: string): { nice: number; autogroup: string } {
  const [stat = "", autogroup = ""] = output.trim().split("\n");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields after the command name start at field 3 (state): nice is field 19.
  return { nice: Number(fields[19 - 3]), autogroup: autogroup.replace(/^\/autogroup-\d+ /, "") };
}

const AUTOGROUP = existsSync("/proc/self/autogroup");
// The nice value the tests start from (a test run may itself be niced): a normal command keeps it.
const myNice = priorityOf(`${readFileSync("/proc/self/stat", "utf8")}\n`).nice;

describe("priorityArgv (pure)", () => {
  it("leaves a normal command as it is", () => {
    expect(priorityArgv(["make", "test"], "normal", { autogroup: true })).toEqual(["make", "test"]);
    expect(priorityArgv(["make", "test"], undefined, { autogroup: true })).toEqual(["make", "test"]);
  });

  it("puts a background command behind a shell prologue that ends by exec'ing it, the arguments untouched", () => {
    const argv = priorityArgv(["sh", "-c", "echo 'a b' \"$x\""], "background", { autogroup: false });
    expect(argv.slice(0, 2)).toEqual(["/bin/sh", "-c"]);
    expect(argv.slice(3)).toEqual(["aider-bot-background", "sh", "-c", "echo 'a b' \"$x\""]);
    expect(argv[2]).not.toContain("autogroup");
    expect(priorityArgv(["true"], "background", { autogroup: true })[2]).toContain("/proc/self/autogroup");
  });
});

describe("a background command runs at a lower CPU priority, with everything it starts", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "priority-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const both = async (exec: Exec, req: Omit<ExecRequest, "cwd">) => {
    const normal = await exec.run({ ...req, cwd: dir });
    const background = await exec.run({ ...req, cwd: dir, priority: "background" });
    expect(normal.exitCode).toBe(0);
    expect(background.exitCode).toBe(0);
    return { normal: priorityOf(normal.stdout), background: priorityOf(background.stdout) };
  };
  const expectBackground = (seen: Awaited<ReturnType<typeof both>>) => {
    expect(seen.normal.nice).toBe(myNice);
    expect(seen.background.nice).toBe(Math.min(19, myNice + BACKGROUND_NICE));
    // Each command is a session of its own: the session's autogroup is what the kernel weighs against the others.
    if (AUTOGROUP) {
      expect(seen.normal.autogroup).toBe("nice 0");
      expect(seen.background.autogroup).toBe(`nice ${BACKGROUND_NICE}`);
    }
  };

  it("on the host, as a shell command and as a program with arguments", async () => {
    const exec = createExec({ sourceEnv: process.env });
    expectBackground(await both(exec, { command: PROBE, shell: true }));
    expectBackground(await both(exec, { command: "/bin/sh", args: ["-c", PROBE] }));
  });

  it("through the spawn helper a job process uses", async () => {
    expectBackground(await both(testExec({ sourceEnv: process.env }), { command: PROBE, shell: true }));
  });

  it("keeps the command's exit code, output and process id (a stop still kills it)", async () => {
    const exec = createExec({ sourceEnv: process.env });
    const r = await exec.run({
      command: "echo out; echo err >&2; exit 3",
      shell: true,
      cwd: dir,
      priority: "background",
    });
    expect(r).toMatchObject({ exitCode: 3, stdout: "out\n", stderr: "err\n" });
    const stop = new AbortController();
    const running = exec.run({
      command: "sleep 600 & echo $$; wait",
      shell: true,
      cwd: dir,
      priority: "background",
      signal: stop.signal,
    });
    stop.abort();
    expect((await running).exitCode).toBeNull();
  });

  // Raising a priority needs CAP_SYS_NICE: where the tests do not run as root, the app could not either.
  const asRoot = process.getuid?.() === 0;
  const raised = async (exec: Exec) => {
    const urgent = new AbortController();
    // The raise reaches the command asynchronously (through the spawn helper, a message): the command waits until its
    // own shell runs at normal priority again (never, if nothing raises it: the run then times out), then probes.
    const running = exec.run({
      command: `touch started; while [ "$(nice)" != "${myNice}" ]; do sleep 0.05; done; ${PROBE}`,
      shell: true,
      cwd: dir,
      priority: "background",
      urgent: urgent.signal,
      timeoutMs: 60_000,
    });
    await waitUntil(() => existsSync(path.join(dir, "started")), "the background command started");
    urgent.abort();
    const r = await running;
    await rm(path.join(dir, "started"));
    expect(r.exitCode).toBe(0);
    const seen = priorityOf(r.stdout);
    expect(seen.nice).toBe(myNice);
    if (AUTOGROUP) expect(seen.autogroup).toBe("nice 0");
  };

  (asRoot ? it : it.skip)(
    `raised back to normal when the run waits for it (urgent), on the host and through the spawn helper${asRoot ? "" : " [skipped: needs root]"}`,
    async () => {
      await raised(createExec({ sourceEnv: process.env }));
      await raised(testExec({ sourceEnv: process.env }));
    },
  );

  itWith("bubblewrap", "raised back to normal inside bubblewrap too", async () => {
    if (!asRoot) return;
    await raised(createSandboxedExec(createExec({ sourceEnv: process.env }), { hide: [], network: false }));
  });

  itWith("bubblewrap", "inside bubblewrap, whose own new session is the one lowered", async () => {
    const sandboxed = createSandboxedExec(createExec({ sourceEnv: process.env }), { hide: [], network: false });
    expectBackground(await both(sandboxed, { command: PROBE, shell: true }));
  });
});
