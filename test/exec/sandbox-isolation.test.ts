import { spawn } from "node:child_process";
import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { createCheckExec } from "../../src/app/create-check-exec.js";
import { readEnv } from "../../src/config/env.js";
import { createExec } from "../../src/exec/create-exec.js";
import { sandboxProblem, sandboxRequest } from "../../src/exec/sandbox.js";
import { createCoderDeps } from "../../src/compose/create-coder-deps.js";
import { createGit } from "../../src/workspace/create-git.js";
import { describeWith } from "../helpers/needs.js";
import { pidsWithArg, survivorsOf, uniqueSleep } from "../helpers/process-probe.js";
import { waitUntil } from "../helpers/wait-until.js";

const exec = createExec({ sourceEnv: process.env });
const log = pino({ level: "silent" });

/**
 * A work dir outside /tmp (finding 4) holding two jobs' checkouts, a key folder and a home with secrets; the check
 * exec is built as the app builds it.
 */
// With each network policy: the bridge of `registries` (a socket mounted in, a forwarder started) must not open a
// way to anything the sandbox hides.
for (const network of ["none", "registries", "open"] as const)
  describeWith("bubblewrap", `the check exec's bubblewrap sandbox (network ${network})`, () => {
    let root: string;
    let work: string;
    let checkout: string;
    let other: string;
    let keyDir: string;
    let home: string;
    beforeAll(async () => {
      // Under the project folder, not /tmp, so hiding /tmp proves nothing here.
      root = await mkdtemp(path.join(process.cwd(), ".sbx-test-"));
      work = path.join(root, "work");
      checkout = path.join(work, "job-1", "repo");
      other = path.join(work, "job-2", "repo");
      keyDir = path.join(root, "keys");
      home = path.join(root, "home");
      for (const d of [path.join(checkout, ".git"), other, keyDir, home]) await mkdir(d, { recursive: true });
      await writeFile(path.join(checkout, ".git", "config"), "[core]\n\tbare = false\n");
      await writeFile(path.join(other, "secret.txt"), "OTHER-JOB-CONTENT");
      await writeFile(path.join(keyDir, "app.pem"), "APP-PRIVATE-KEY");
      await writeFile(path.join(home, ".netrc"), "HOME-SECRET");
    });
    afterAll(async () => {
      await made?.close?.();
      await rm(root, { recursive: true, force: true });
    });

    let made: ReturnType<typeof createCheckExec> | undefined;
    const checkExec = () =>
      (made ??= createCheckExec(
        readEnv({
          AIDER_BOT_SANDBOX: "bubblewrap",
          AIDER_BOT_WORK_DIR: work,
          PRIVATE_KEY_PATH: path.join(keyDir, "app.pem"),
          AIDER_BOT_SANDBOX_NETWORK: network,
        }),
        exec,
        log,
        {
          appDir: home,
        },
      ));
    const run = (command: string, timeoutMs = 15_000) =>
      checkExec().run({ command, shell: true, cwd: checkout, timeoutMs });

    it("reports bubblewrap as its mode", async () => {
      expect(await checkExec().sandboxMode!()).toBe("bubblewrap");
    });

    it("cannot see the app's process or read its environ", async () => {
      const r = await run(`cat /proc/${process.pid}/environ; echo; ls /proc | grep -c '^[0-9]'; echo done`);
      expect(r.output).toContain("done");
      expect(r.output).not.toContain("PATH=");
      // Only the sandbox's own few processes are visible (sh, ls, grep, bwrap's init), not the host's.
      const visible = Number(r.output.trim().split("\n").at(-2));
      expect(visible).toBeLessThan(6);
    });

    it("cannot read another job's checkout under a work dir outside /tmp", async () => {
      const r = await run(`cat ${other}/secret.txt; echo "[$(ls ${work} | tr '\\n' ' ')]"`);
      expect(r.output).not.toContain("OTHER-JOB-CONTENT");
      expect(r.output).toContain("[job-1 ]");
    });

    it("cannot read the key folder or HOME", async () => {
      const r = await run(`cat ${keyDir}/app.pem; cat ${home}/.netrc; echo done`);
      expect(r.output).toContain("done");
      expect(r.output).not.toContain("APP-PRIVATE-KEY");
      expect(r.output).not.toContain("HOME-SECRET");
    });

    it("can write its checkout but not .git/config", async () => {
      const r = await run(`echo built > out.txt; printf '[include]\\n\\tpath = /x\\n' >> .git/config; echo done`);
      expect(r.output).toContain("done");
      expect(await readFile(path.join(checkout, "out.txt"), "utf8")).toBe("built\n");
      expect(await readFile(path.join(checkout, ".git", "config"), "utf8")).not.toContain("include");
    });

    it("dies with its parent: killing the process that started it (the app) with SIGKILL ends everything inside", async () => {
      const n = uniqueSleep();
      const req = sandboxRequest(
        { command: `sleep ${n} & setsid sleep ${n} & wait`, shell: true, cwd: checkout },
        { hide: [work], network: false },
      );
      // A stand-in for the app: a shell that starts the sandbox and is then killed without any chance to clean up.
      const app = spawn("sh", ["-c", '"$@" & wait', "sh", req.command, ...req.args!], { stdio: "ignore" });
      await waitUntil(
        () => pidsWithArg(n).length >= 2,
        () => `both sleeps never ran inside the sandbox (pids: ${pidsWithArg(n).join(", ")})`,
      );
      process.kill(app.pid!, "SIGKILL");
      expect(await survivorsOf(n)).toEqual([]);
    });

    it("leaves no process behind when a command times out", async () => {
      const n = uniqueSleep();
      const r = await run(`setsid sleep ${n} >/dev/null 2>&1 & (sleep ${n} >/dev/null 2>&1 &) ; wait`, 500);
      expect(r.timedOut).toBe(true);
      expect(await survivorsOf(n)).toEqual([]);
    });
  });

describe("the check exec when bubblewrap cannot run", () => {
  it("does not run repository commands and says why", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "sbx-unavail-"));
    try {
      // `auto` (the default) with no container engine either.
      const checkExec = createCheckExec(readEnv({}), exec, log, {
        probe: async () => "bubblewrap (bwrap) is not installed",
        containerProbe: async () => "podman is not installed",
      });
      expect(await checkExec.sandboxMode!()).toBe(
        "unavailable: bubblewrap (bwrap) is not installed; and podman is not installed",
      );
      const r = await checkExec.run({ command: "echo ran > ran.txt", shell: true, cwd: dir });
      expect(r.spawnError).toMatch(
        /not run: the sandbox is unavailable: bubblewrap \(bwrap\) is not installed; and podman is not installed/,
      );
      await expect(readFile(path.join(dir, "ran.txt"), "utf8")).rejects.toThrow();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reaches the coder: its deps report the mode, so setup/lint/test are skipped", async () => {
    const checkExec = createCheckExec(readEnv({ AIDER_BOT_SANDBOX: "on" }), exec, log, {
      probe: async () => "user namespaces are disabled",
      containerProbe: async () => "never asked",
    });
    const deps = createCoderDeps({
      root: os.tmpdir(),
      exec,
      checkExec,
      git: createGit(exec),
      llm: {
        complete: async () => {
          throw new Error("not called");
        },
      },
      protectedPaths: [],
    });
    expect(await deps.sandboxMode!()).toBe("unavailable: user namespaces are disabled");
  });

  it("finds the reason itself when bwrap is not on the PATH", async () => {
    const noBwrap = createExec({ sourceEnv: { PATH: "/nonexistent" } });
    expect(await sandboxProblem(noBwrap)).toBe("bubblewrap (bwrap) is not installed");
  });

  it("runs commands unsandboxed only when the operator set AIDER_BOT_SANDBOX=off", async () => {
    const checkExec = createCheckExec(readEnv({ AIDER_BOT_SANDBOX: "off" }), exec, log, {
      probe: async () => "never asked",
    });
    expect(await checkExec.sandboxMode!()).toBe("off");
    expect((await checkExec.run({ command: "echo ran", shell: true, cwd: os.tmpdir() })).output).toBe("ran\n");
  });
});

describeWith("bubblewrap", "the check exec's job folders", () => {
  let root: string;
  let work: string;
  let checkout: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(process.cwd(), ".sbx-jobdirs-"));
    work = path.join(root, "work");
    checkout = path.join(work, "job-1", "repo");
    await mkdir(checkout, { recursive: true });
  });
  afterAll(() => rm(root, { recursive: true, force: true }));
  const checkExec = () =>
    createCheckExec(readEnv({ AIDER_BOT_SANDBOX: "bubblewrap", AIDER_BOT_WORK_DIR: work }), exec, log);

  it("one $HOME and one TMPDIR per job: a setup step's ~/.local/bin/x and $TMPDIR/y are there for a later command, not for another job, and go with the job", async () => {
    const envDirs = async () => (await readdir(work)).filter((n) => n.includes("-env-"));
    const before = await envDirs();
    const job = checkExec();
    const other = checkExec();
    try {
      const setup = await job.run({
        command: 'mkdir -p ~/.local/bin && echo tool > ~/.local/bin/x && echo kept > "$TMPDIR/y" && echo "home=$HOME"',
        shell: true,
        cwd: checkout,
        timeoutMs: 15_000,
      });
      expect(setup.exitCode).toBe(0);
      const later = await job.run({
        command: 'cat ~/.local/bin/x "$TMPDIR/y"',
        shell: true,
        cwd: checkout,
        timeoutMs: 15_000,
      });
      expect(later.output).toBe("tool\nkept\n");
      const elsewhere = await other.run({
        command: 'cat ~/.local/bin/x "$TMPDIR/y" 2>&1; ls -A ~ /tmp; echo done',
        shell: true,
        cwd: checkout,
        timeoutMs: 15_000,
      });
      expect(elsewhere.output).not.toContain("tool");
      expect(elsewhere.output).not.toContain("kept");
      expect(elsewhere.output).toContain("done");
      // The job's folders live under the work dir (hidden from every sandbox) until the job ends.
      expect((await envDirs()).filter((n) => !before.includes(n))).toHaveLength(2);
    } finally {
      await job.close!();
      await other.close!();
    }
    expect(await envDirs()).toEqual(before);
  });
});

describeWith("bubblewrap", "the check exec in a job process (PRIVATE_KEY_PATH stripped)", () => {
  it("still hides the App key's folder: the app hands the job its folder, and a command cannot read the key", async () => {
    // Outside the folders every sandbox hides anyway (the app's folder, home, /tmp): only the key's own hiding counts.
    const root = await mkdtemp(path.join("/var/tmp", "sbx-key-"));
    try {
      const keyFile = path.join(root, "keys", "app.pem");
      const checkout = path.join(root, "work", "job", "repo");
      await mkdir(path.dirname(keyFile), { recursive: true });
      await mkdir(checkout, { recursive: true });
      await writeFile(keyFile, "APP-PRIVATE-KEY-IN-JOB");
      const { withoutSecrets } = await import("../../src/app/run-job-process.js");
      const jobEnv = withoutSecrets({
        ...process.env,
        AIDER_BOT_SANDBOX: "bubblewrap",
        AIDER_BOT_WORK_DIR: path.join(root, "work"),
        PRIVATE_KEY_PATH: keyFile,
      });
      const checkExec = createCheckExec(readEnv(jobEnv), exec, log);
      try {
        const r = await checkExec.run({
          command: `cat '${keyFile}'; echo done`,
          shell: true,
          cwd: checkout,
          timeoutMs: 15_000,
        });
        expect(r.output).toContain("done");
        expect(r.output).not.toContain("APP-PRIVATE-KEY-IN-JOB");
      } finally {
        await checkExec.close?.();
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
