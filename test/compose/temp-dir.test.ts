import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { tempDirIn } from "../../src/compose/compose-run.js";
import type { Exec, ExecRequest } from "../../src/exec/types.js";
import { testExec } from "../helpers/test-exec.js";

const inner = testExec({ sourceEnv: process.env });

/** The exec, recording each command it is asked to run. */
function recording(ran: string[], run: Exec["run"] = (req) => inner.run(req)): Exec {
  return { ...inner, run: (req: ExecRequest) => (ran.push(`${req.command} ${(req.args ?? []).join(" ")}`), run(req)) };
}

describe("a run's temporary folder", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "temp-dir-"));
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  /** A job folder holding a checkout's worth of files and a link out of it. */
  const jobFolder = async (dirs: ReturnType<typeof tempDirIn>) => {
    const dir = await dirs.create("aider-bot-job-");
    for (let i = 0; i < 20; i++) {
      await mkdir(path.join(dir, "checkout", `d${i % 4}`), { recursive: true });
      await writeFile(path.join(dir, "checkout", `d${i % 4}`, `f${i}.ts`), `export const f${i} = ${i};\n`);
    }
    await writeFile(path.join(root, "outside.txt"), "keep\n");
    await symlink(path.join(root, "outside.txt"), path.join(dir, "link"));
    return dir;
  };

  it("is removed by `rm -rf` in a process of its own, which leaves what a link inside points at", async () => {
    const ran: string[] = [];
    const dirs = tempDirIn(root, recording(ran));
    const dir = await jobFolder(dirs);
    await dirs.remove(dir);
    expect(ran).toEqual([`rm -rf -- ${dir}`]);
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(path.join(root, "outside.txt"))).toBe(true);
  });

  it("is still removed when rm cannot run", async () => {
    const ran: string[] = [];
    const dirs = tempDirIn(
      root,
      recording(ran, async () => ({
        exitCode: null,
        output: "",
        stdout: "",
        stderr: "",
        timedOut: false,
        durationMs: 0,
        spawnError: "spawn rm ENOENT",
      })),
    );
    const dir = await jobFolder(dirs);
    await dirs.remove(dir);
    expect(ran).toHaveLength(1);
    expect(existsSync(dir)).toBe(false);
  });
});
