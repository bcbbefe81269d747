import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sweepJobDirs } from "../../src/app/sweep-job-dirs.js";

describe("sweepJobDirs", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "sweep-test-"));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("removes the checkouts of dead processes and keeps live ones and everything else", async () => {
    // A process that has exited: its pid is free (for the moment of this test).
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]).stdout.toString();
    await mkdir(path.join(root, `aider-bot-job-${dead}-abc123`, "checkout"), { recursive: true });
    await mkdir(path.join(root, `aider-bot-job-${process.pid}-def456`));
    await mkdir(path.join(root, "queue"));
    const swept = await sweepJobDirs({ workDir: root });
    expect(swept).toEqual([`aider-bot-job-${dead}-abc123`]);
    expect((await readdir(root)).sort()).toEqual([`aider-bot-job-${process.pid}-def456`, "queue"]);
  });

  it("answers nothing swept when the work dir does not exist yet", async () => {
    expect(await sweepJobDirs({ workDir: path.join(root, "missing") })).toEqual([]);
  });
});
