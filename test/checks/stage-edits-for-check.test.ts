import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { mkdirSync } from "node:fs";
import pino from "pino";
import path from "node:path";
import { runCheckCommand } from "../../src/checks/run-check-command.js";
import { needsStagedEdits } from "../../src/checks/stage-edits-for-check.js";
import { createExec } from "../../src/exec/create-exec.js";
import { createCheckExec } from "../../src/app/create-check-exec.js";
import { readEnv } from "../../src/config/env.js";
import type { Exec } from "../../src/exec/types.js";
import { describeWith } from "../helpers/needs.js";

const host = createExec({ sourceEnv: { PATH: process.env.PATH } });

/** The same checks on the host and in the app's bubblewrap sandbox (where `.git` is mounted read-only). */
function suite(sandboxed: boolean) {
  const root = { dir: "" };
  let made: ReturnType<typeof createCheckExec> | undefined;
  const exec: Exec = sandboxed
    ? {
        run: (req) =>
          (made ??= createCheckExec(
            readEnv({
              AIDER_BOT_SANDBOX: "bubblewrap",
              AIDER_BOT_WORK_DIR: root.dir,
              AIDER_BOT_SANDBOX_NETWORK: "none",
            }),
            host,
            pino({ level: "silent" }),
            { appDir: path.join(root.dir, "app") },
          )).run(req),
      }
    : host;
  let dir: string;
  beforeAll(async () => {
    // Under the project folder, not /tmp, which the sandbox replaces with a private one.
    root.dir = await mkdtemp(path.join(process.cwd(), ".staged-check-"));
  });
  afterAll(async () => {
    await made?.close?.();
    await rm(root.dir, { recursive: true, force: true });
  });
  const git = async (...args: string[]) => {
    const r = await host.run({ command: "git", args, cwd: dir });
    if (r.exitCode !== 0) throw new Error(r.output);
    return r.stdout;
  };
  beforeEach(async () => {
    dir = await mkdtemp(path.join(root.dir, "job-"));
    await git("init", "-q", "-b", "main");
    mkdirSync(path.join(dir, "tests"));
    await writeFile(path.join(dir, "lib.c"), "int f(void) { return 1; }\n");
    await writeFile(path.join(dir, "tests", "expected.txt"), "2\n");
    await writeFile(path.join(dir, "tests", "run.sh"), "grep -o 'return [0-9]' ../lib.c | cut -c8 > expected.txt\n");
    await git("add", "-A");
    await git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "base");
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const check = (command: string) => runCheckCommand(exec, { kind: "test", command, cwd: dir, timeoutMs: 20_000 });

  it("`git diff --exit-code` after the tests sees what the tests changed, not the run's own edit", async () => {
    // The run's edit makes the output match the committed expectation (as a real fix does).
    await writeFile(path.join(dir, "lib.c"), "int f(void) { return 2; }\n");
    const good = await check("cd tests ⏎ sh run.sh ⏎ cd .. ⏎ git diff --exit-code".replace(/ ⏎ /g, "\n"));
    expect(good).toMatchObject({ ok: true });
    expect(good.command).toBe("cd tests\nsh run.sh\ncd ..\ngit diff --exit-code");
    // A wrong edit: the tests rewrite expected.txt, and the check names that file (not lib.c) as changed.
    await writeFile(path.join(dir, "lib.c"), "int f(void) { return 3; }\n");
    const bad = await check("cd tests && sh run.sh && cd .. && git diff --exit-code --stat");
    expect(bad.ok).toBe(false);
    expect(bad.output).toContain("tests/expected.txt");
    expect(bad.output).not.toContain("lib.c");
  });

  it("leaves the checkout's own index and object store as they were", async () => {
    await writeFile(path.join(dir, "lib.c"), "int f(void) { return 2; }\n");
    await writeFile(path.join(dir, "new.c"), "int g(void);\n");
    const index = await readFile(path.join(dir, ".git", "index"));
    const objects = await git("count-objects");
    expect(await check("git diff --quiet && git status --porcelain")).toMatchObject({ ok: true });
    expect(await readFile(path.join(dir, ".git", "index"))).toEqual(index);
    expect(await git("count-objects")).toBe(objects);
    expect(await git("status", "--porcelain")).toBe(" M lib.c\n?? new.c\n");
  });
}

describe("checks that ask git whether anything changed (real git, on the host)", () => suite(false));
describeWith("bubblewrap", "checks that ask git whether anything changed (real git, in bubblewrap)", () => suite(true));

it("only commands that run git diff or git status get the staging", () => {
  expect(needsStagedEdits("make test && git diff --exit-code")).toBe(true);
  expect(needsStagedEdits("cd tests\n./unittest.sh\ngit  -C .. status --porcelain")).toBe(true);
  expect(needsStagedEdits("npm test")).toBe(false);
  expect(needsStagedEdits("git log -1 && echo diff")).toBe(false);
});
