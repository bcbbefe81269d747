import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { compareWithBaseline } from "../../../src/checks/compare-baseline.js";
import type { CheckCommandSpec } from "../../../src/coder/types.js";
import { pullRequestBase } from "../../../src/run/prepare/base-commit.js";
import { startBaseline } from "../../../src/run/prepare/baseline-run.js";
import { createGit } from "../../../src/workspace/create-git.js";
import { testExec } from "../../helpers/test-exec.js";

const exec = testExec({ sourceEnv: process.env });
const git = createGit(exec, { name: "t", email: "t@example.com" });

describe("pullRequestBase: a pull request's base is where it branched off the default branch, not the branch's tip", () => {
  let root: string;
  let origin: string;
  let checkout: string;
  let forkPoint: string;
  const commit = async (dir: string, file: string, text: string, message: string) => {
    await writeFile(path.join(dir, file), text);
    await git.run(dir, ["add", "."]);
    await git.run(dir, ["commit", "--quiet", "-m", message]);
    return git.headSha(dir);
  };
  const fails = (why: string) => `echo "${why}" >&2\nexit 1\n`;

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "base-commit-"));
    origin = path.join(root, "origin");
    await mkdir(origin);
    await git.run(origin, ["init", "--quiet", "-b", "main"]);
    await commit(origin, "README", "r\n", "first");
    // The fork point: its test fails one way (a missing module system, say).
    forkPoint = await commit(origin, "test.sh", fails("go: go.mod file not found in current directory"), "old");
    await git.run(origin, ["checkout", "--quiet", "-b", "feature"]);
    for (const n of [1, 2, 3]) await commit(origin, `f${n}.txt`, `${n}\n`, `feature ${n}`);
    // The default branch moves on, and its tip fails differently.
    await git.run(origin, ["checkout", "--quiet", "main"]);
    await commit(origin, "test.sh", fails("error: cannot find package github.com/x/y"), "moved on");
    for (const n of [1, 2, 3]) await commit(origin, `m${n}.txt`, `${n}\n`, `main ${n}`);
    checkout = path.join(root, "job", "checkout");
    // As the App's run has it: a clone of the head branch, one commit deep.
    await git.clone({ url: `file://${origin}`, branch: "feature", dir: checkout, depth: 1 });
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("deepens both branches until they meet, and finds the fork point", async () => {
    const fetched: number[] = [];
    const counting = {
      ...git,
      fetch: (req: Parameters<typeof git.fetch>[0]) => (fetched.push(req.depth ?? req.deepen ?? 0), git.fetch(req)),
    };
    const head = await git.headSha(checkout);
    const base = await pullRequestBase(
      counting,
      // With a token, as the App fetches: from a clean git dir, the shallow list carried back to the checkout.
      { dir: checkout, head, headBranch: "feature", defaultBranch: "main", token: "t0ken-not-secret" },
      [1, 2, 8],
    );
    expect(base).toBe(forkPoint);
    // Two tries too shallow (each fetching both branches), the third deep enough.
    expect(fetched).toEqual([1, 1, 2, 2, 8, 8]);
    // The head's tracking ref is left where the clone put it (a push that finds the branch moved starts there).
    expect((await git.run(checkout, ["rev-parse", "refs/remotes/origin/feature"])).stdout.trim()).toBe(head);
  });

  it("the base's checks run at the fork point: its failure is the base's, the moved tip's is not", async () => {
    const spec: CheckCommandSpec = { kind: "test", command: "sh test.sh", asWritten: true };
    const head = await git.headSha(checkout);
    const run = startBaseline(checkout, [spec], 10_000, {
      baseSha: () => pullRequestBase(git, { dir: checkout, head, headBranch: "feature", defaultBranch: "main" }),
      checkoutBase: async (sha, dir) => {
        await git.run(checkout, ["worktree", "add", "--detach", "--quiet", dir, sha]);
      },
      checkExecFor: () => exec,
      cacheDir: path.join(root, "cache"),
      signal: new AbortController().signal,
      onError: (error) => {
        throw error;
      },
    });
    const base = await run.lookup(spec);
    await run.done;
    const failed = (output: string) => ({ ok: false, exitCode: 1, output });
    expect(
      compareWithBaseline(failed("go: go.mod file not found in current directory"), base, run.roots),
    ).toMatchObject({
      kind: "pre-existing",
    });
    expect(compareWithBaseline(failed("error: cannot find package github.com/x/y"), base, run.roots)).toEqual({
      kind: "new",
    });
  });

  it("branches that never meet within the depths: an error saying so (the run then compares nothing)", async () => {
    await git.run(origin, ["checkout", "--quiet", "--orphan", "unrelated"]);
    await commit(origin, "other.txt", "x\n", "unrelated root");
    await git.run(origin, ["checkout", "--quiet", "main"]);
    const other = path.join(root, "job2", "checkout");
    await git.clone({ url: `file://${origin}`, branch: "unrelated", dir: other, depth: 1 });
    await expect(
      pullRequestBase(
        git,
        { dir: other, head: await git.headSha(other), headBranch: "unrelated", defaultBranch: "main" },
        [1, 50],
      ),
    ).rejects.toThrow("share no commit within 50 commits");
  });
});
