import { readdir, readFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import pino from "pino";
import { createCheckExec } from "../../src/app/create-check-exec.js";
import { JOB_DIR_PREFIX } from "../../src/app/execute-run.js";
import { readEnv } from "../../src/config/env.js";
import { createExec } from "../../src/exec/create-exec.js";
import { describeWith } from "../helpers/needs.js";

/**
 * `prepare()` does, while the run clones, what the job's first repository command used to wait for: the job's home
 * and temp folders exist before any command, and the first command uses exactly those (what it writes to `$HOME`
 * lands in the prepared folder). `close()` removes them as before.
 */
describeWith("bubblewrap", "the check exec's prepare (real bubblewrap)", () => {
  let root: string;
  beforeAll(async () => {
    // Under the project folder, not /tmp, which the sandbox replaces with a private one.
    root = await mkdtemp(path.join(process.cwd(), ".check-prepare-"));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const jobFolders = async (work: string) =>
    (await readdir(work).catch(() => [] as string[])).filter((f) =>
      f.startsWith(`${JOB_DIR_PREFIX}${process.pid}-env-`),
    );

  it("makes the job's folders before the first command, which then uses them; close() removes them", async () => {
    const work = path.join(root, "work");
    const checkout = path.join(root, "checkout");
    await mkdir(checkout, { recursive: true });
    const exec = createCheckExec(
      readEnv({
        AIDER_BOT_SANDBOX: "bubblewrap",
        AIDER_BOT_WORK_DIR: work,
        AIDER_BOT_CACHE_DIR: path.join(root, "cache"),
        AIDER_BOT_SANDBOX_NETWORK: "none",
      }),
      createExec({ sourceEnv: process.env }),
      pino({ level: "silent" }),
      { appDir: path.join(root, "app") },
    );
    try {
      expect(await jobFolders(work)).toEqual([]);
      await exec.prepare!();
      const [made, ...more] = await jobFolders(work);
      expect(made).toBeDefined();
      expect(more).toEqual([]);
      expect((await readdir(path.join(work, made!))).sort()).toEqual(["home", "tmp"]);

      const r = await exec.run({
        command: 'echo prepared > "$HOME/mark"',
        shell: true,
        cwd: checkout,
        timeoutMs: 60_000,
      });
      expect(r.exitCode).toBe(0);
      expect(await readFile(path.join(work, made!, "home", "mark"), "utf8")).toBe("prepared\n");
      expect(await jobFolders(work)).toEqual([made]);
    } finally {
      await exec.close?.();
    }
    expect(await jobFolders(work)).toEqual([]);
  });

  it("a sandbox that cannot run: prepare makes nothing and does not throw; the command reports why it did not run", async () => {
    const work = path.join(root, "work-unavailable");
    const exec = createCheckExec(
      readEnv({ AIDER_BOT_SANDBOX: "bubblewrap", AIDER_BOT_WORK_DIR: work, AIDER_BOT_SANDBOX_NETWORK: "none" }),
      createExec({ sourceEnv: process.env }),
      pino({ level: "silent" }),
      { appDir: path.join(root, "app"), probe: async () => "bubblewrap (bwrap) is not installed" },
    );
    try {
      await expect(exec.prepare!()).resolves.toBeUndefined();
      expect(await jobFolders(work)).toEqual([]);
      const r = await exec.run({ command: "true", shell: true, cwd: root, timeoutMs: 60_000 });
      expect(r.spawnError).toContain("bwrap");
    } finally {
      await exec.close?.();
    }
  });
});
