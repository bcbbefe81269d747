import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startBaseline, type BaselineDeps } from "../../../src/run/prepare/baseline-run.js";
import { createGit } from "../../../src/workspace/create-git.js";
import type { CheckCommandSpec } from "../../../src/coder/types.js";
import { testExec } from "../../helpers/test-exec.js";

const exec = testExec({ sourceEnv: process.env });
const git = createGit(exec, { name: "t", email: "t@example.com" });

describe("startBaseline: the repository's checks on the base, kept by commit and command", () => {
  let root: string;
  let checkout: string;
  let cacheDir: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "baseline-run-"));
    checkout = path.join(root, "job", "checkout");
    cacheDir = path.join(root, "cache");
    await mkdir(checkout, { recursive: true });
    await git.run(checkout, ["init", "--quiet"]);
    await writeFile(
      path.join(checkout, "test.sh"),
      'echo "go test ./..."\necho "go: go.mod file not found in current directory or any parent directory" >&2\nexit 1\n',
    );
    await writeFile(path.join(checkout, "setup.sh"), "touch installed\n");
    await git.run(checkout, ["add", "."]);
    await git.run(checkout, ["commit", "--quiet", "-m", "base"]);
    // The change's edit, before the base is made: the base is the commit, not the working tree.
    await writeFile(path.join(checkout, "test.sh"), "exit 0\n");
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const specs: CheckCommandSpec[] = [
    { kind: "setup", command: "sh setup.sh", asWritten: true },
    { kind: "lint", command: "eslint" },
    { kind: "test", command: "sh test.sh", asWritten: true },
  ];
  const depsOf = (made: string[], ran: string[]): BaselineDeps => ({
    baseSha: () => git.headSha(checkout),
    checkoutBase: async (sha, dir) => {
      made.push(dir);
      await git.run(checkout, ["worktree", "add", "--detach", "--quiet", dir, sha]);
    },
    checkExec: { run: (req) => (ran.push(req.command), exec.run(req)) },
    cacheDir,
    signal: new AbortController().signal,
    onError: (error) => {
      throw error;
    },
  });

  it("runs setup then the comparable commands in a checkout of the base, and a later run on the same base runs nothing", async () => {
    const made: string[] = [];
    const ran: string[] = [];
    const first = startBaseline(checkout, specs, 10_000, depsOf(made, ran));
    const test = await first.lookup(specs[2]!);
    expect(test).toMatchObject({
      ok: false,
      exitCode: 1,
      failing: null,
      summary: "go: go.mod file not found in current directory or any parent directory",
    });
    // A configured lint command gets the edited files appended: nothing on the base to compare it with.
    expect(await first.lookup(specs[1]!)).toBeNull();
    await first.done;
    const base = path.join(root, "job", "base");
    expect(made).toEqual([base]);
    expect(existsSync(path.join(base, "installed"))).toBe(true);
    expect(ran).toEqual(["sh setup.sh", "sh test.sh"]);
    expect(first.roots).toEqual([checkout, base]);
    expect(await readdir(cacheDir)).toEqual([`${await git.headSha(checkout)}.json`]);

    const again: string[] = [];
    const second = startBaseline(checkout, specs, 10_000, depsOf(made, again));
    expect(await second.lookup(specs[2]!)).toEqual(test);
    await second.done;
    expect(again).toEqual([]);
    expect(made).toHaveLength(1);
  });

  it("a failing setup step ends the base's run: what follows it is not run there", async () => {
    const ran: string[] = [];
    const failing: CheckCommandSpec[] = [{ kind: "setup", command: "exit 3", asWritten: true }, specs[2]!];
    const run = startBaseline(checkout, failing, 10_000, depsOf([], ran));
    expect(await run.lookup(failing[0]!)).toMatchObject({ ok: false, exitCode: 3 });
    expect(await run.lookup(failing[1]!)).toBeNull();
    expect(ran).toEqual(["exit 3"]);
  });

  it("a base that cannot be made leaves every lookup null (the change's failures are reflected as always)", async () => {
    const errors: unknown[] = [];
    const run = startBaseline(checkout, specs, 10_000, {
      ...depsOf([], []),
      baseSha: async () => {
        throw new Error("fetch failed");
      },
      onError: (e) => void errors.push(e),
    });
    expect(await run.lookup(specs[2]!)).toBeNull();
    expect(errors).toHaveLength(1);
  });
});
