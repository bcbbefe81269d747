import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { compareWithBaseline } from "../../../src/checks/compare-baseline.js";
import { runCheckCommand } from "../../../src/checks/run-check-command.js";
import { BACKGROUND_NICE } from "../../../src/exec/priority.js";
import { startBaseline, type BaselineDeps } from "../../../src/run/prepare/baseline-run.js";
import { createGit } from "../../../src/workspace/create-git.js";
import type { CheckCommandSpec } from "../../../src/coder/types.js";
import type { ExecRequest } from "../../../src/exec/types.js";
import { testExec } from "../../helpers/test-exec.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { alive } from "../../../src/app/sweep-job-dirs.js";

const exec = testExec({ sourceEnv: process.env });
const git = createGit(exec, { name: "t", email: "t@example.com" });

/** A setup step that only installs uv, as an implied tool: served from the tools shelf on the base and the change. */
const IMPLIED_UV: CheckCommandSpec = {
  kind: "setup",
  command: "exit 3",
  asWritten: true,
  installsRunners: ["uv"],
  tool: { name: "uv", requirement: "uv" },
};

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
    await commitScripts(
      {
        "test.sh":
          'echo "go test ./..."\necho "go: go.mod file not found in current directory or any parent directory" >&2\nexit 1\n',
        "setup.sh": "touch installed\n",
      },
      "base",
    );
    // The change's edit, before the base is made: the base is the commit, not the working tree.
    await writeFile(path.join(checkout, "test.sh"), "exit 0\n");
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });
  /** The checkout's scripts, written and committed: the base a run starts from. */
  const commitScripts = async (files: Record<string, string>, message: string) => {
    for (const [name, text] of Object.entries(files)) await writeFile(path.join(checkout, name), text);
    await git.run(checkout, ["add", "."]);
    await git.run(checkout, ["commit", "--quiet", "-m", message]);
  };

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
    // The command as written: the last line of the script the check runner wraps around it.
    checkExecFor: () => ({ run: (req) => (ran.push(req.command.split("\n").at(-1)!), exec.run(req)) }),
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
    expect(test).toMatchObject({ ok: false, exitCode: 1, failing: null });
    const head = {
      ok: false,
      exitCode: 1,
      output: "go test ./...\ngo: go.mod file not found in current directory or any parent directory",
    };
    expect(compareWithBaseline(head, test, first.roots)).toMatchObject({
      kind: "pre-existing",
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

  it("a later run whose base kept setup's result but not the test's sets its fresh checkout up again before the test", async () => {
    // Setup waits for the test's word; the first run is stopped while it runs, so only setup's result is kept.
    await commitScripts(
      {
        "setup.sh": "touch ../setup-started\nwhile [ ! -e ../go ]; do sleep 0.05; done\ntouch installed\n",
        "test.sh": "test -e installed\n",
      },
      "needs setup",
    );
    const both = [specs[0]!, specs[2]!];
    const ran: string[] = [];
    const first = startBaseline(checkout, both, 600_000, { ...depsOf([], ran), finishWithinMs: 600_000 });
    await waitUntil(() => existsSync(path.join(root, "job", "setup-started")), "the base's setup started");
    first.stop();
    await writeFile(path.join(root, "job", "go"), "");
    await first.done;
    expect(ran).toEqual(["sh setup.sh"]);
    expect(await first.lookup(specs[2]!)).toBeNull();

    // The next run's base is a checkout of its own: without setup the test would fail there, and be kept so.
    await rm(path.join(root, "job", "base"), { recursive: true, force: true });
    await git.run(checkout, ["worktree", "prune"]);
    const again: string[] = [];
    const second = startBaseline(checkout, both, 600_000, depsOf([], again));
    expect(await second.lookup(specs[2]!)).toMatchObject({ ok: true });
    await second.done;
    expect(again).toEqual(["sh setup.sh", "sh test.sh"]);
  });

  it("serves the base's implied tool install from the job's tools shelf, as the change's: one install for both", async () => {
    const implied = IMPLIED_UV;
    const asked: string[] = [];
    // A shelf whose place is under the test's root; the install itself (through `run`) fails at once: no pip here.
    const shelfExec = {
      run: (req: ExecRequest) => (asked.push(req.label ?? req.command), exec.run({ ...req, command: "exit 1" })),
      toolShelf: async () => ({ dir: path.join(root, "shelf"), home: path.join(root, "home"), retryAfterMs: 0 }),
    };
    const run = startBaseline(checkout, [implied], 10_000, { ...depsOf([], []), checkExecFor: () => shelfExec });
    await run.done;
    // The planned command never ran on the base: the shelf's install did.
    expect(asked).toEqual(["install uv onto the repository's tools shelf"]);
    expect(await run.lookup(implied)).toMatchObject({ ok: false, exitCode: 1 });
  });

  it("raises the base's tool install, run as background work, when the change's step joins it", async () => {
    const implied = IMPLIED_UV;
    const place = { dir: path.join(root, "shelf"), home: path.join(root, "home"), retryAfterMs: 0 };
    const seen: ExecRequest[] = [];
    let installing!: () => void;
    const started = new Promise<void>((resolve) => (installing = resolve));
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    const baseExec = {
      run: async (req: ExecRequest) => {
        seen.push(req);
        installing();
        await held;
        return exec.run({ ...req, command: "exit 1" });
      },
      toolShelf: async () => place,
    };
    const run = startBaseline(checkout, [implied], 10_000, { ...depsOf([], []), checkExecFor: () => baseExec });
    await started;
    expect(seen[0]).toMatchObject({ priority: "background" });
    expect(seen[0]!.urgent?.aborted).toBe(false);
    // The change's implied step asks for the same tool in the same job: it waits for the base's install.
    const change = runCheckCommand(
      { run: (req) => exec.run(req), toolShelf: async () => place },
      {
        kind: "setup",
        command: "exit 3",
        tool: { name: "uv", requirement: "uv" },
        cwd: checkout,
        timeoutMs: 10_000,
      },
    );
    await waitUntil(() => seen[0]!.urgent?.aborted === true, "the base's install was not raised");
    finish();
    expect(await change).toMatchObject({ ok: false });
    await run.done;
    expect(seen).toHaveLength(1);
  });

  it("runs the base's commands as background work: a lower CPU priority than the change's own run of them", async () => {
    // The command notes the nice value of a process it starts (field 19 of /proc/self/stat) in its folder.
    const spec: CheckCommandSpec = {
      kind: "test",
      command: "cut -d' ' -f19 /proc/self/stat > niceness",
      asWritten: true,
    };
    const run = startBaseline(checkout, [spec], 10_000, { ...depsOf([], []), checkExecFor: () => exec });
    // Not asked for while it runs (the run waiting for it would raise it back to normal).
    await run.done;
    expect(await run.lookup(spec)).toMatchObject({ ok: true });
    // The change's run of the same command, as the coder runs its checks.
    const own = await runCheckCommand(exec, { kind: "test", command: spec.command, cwd: checkout, timeoutMs: 10_000 });
    expect(own.ok).toBe(true);
    const onBase = Number(await readFile(path.join(root, "job", "base", "niceness"), "utf8"));
    const onChange = Number(await readFile(path.join(checkout, "niceness"), "utf8"));
    expect(onBase).toBe(Math.min(19, onChange + BACKGROUND_NICE));
  });

  // Raising a priority needs CAP_SYS_NICE: where the tests do not run as root, the app could not either.
  (process.getuid?.() === 0 ? it : it.skip)(
    "once the run waits for a result still to come, the base's command under way is raised back to normal priority",
    async () => {
      // The change's own priority, as the coder runs its checks.
      const own = await runCheckCommand(exec, {
        kind: "test",
        command: "cut -d' ' -f19 /proc/self/stat",
        cwd: checkout,
        timeoutMs: 10_000,
      });
      const normal = Number(own.output.trim());
      // The base's command notes its shell's nice value while it waits for the test's word, then that of a process
      // it starts. The raise is applied while the command runs, so the word waits until the shell shows it.
      const waiting: CheckCommandSpec = {
        kind: "test",
        command:
          "touch started; while [ ! -e ../go ]; do cut -d' ' -f19 /proc/$$/stat > now; sleep 0.05; done; cut -d' ' -f19 /proc/self/stat > niceness",
        asWritten: true,
      };
      const run = startBaseline(checkout, [waiting], 60_000, { ...depsOf([], []), checkExecFor: () => exec });
      const base = path.join(root, "job", "base");
      await waitUntil(() => existsSync(path.join(base, "started")), "the base's command started");
      const result = run.lookup(waiting);
      // An empty read is the file between its truncation and its write, not a nice value of 0.
      const niceNow = () =>
        readFile(path.join(base, "now"), "utf8").then(
          (t) => (t.trim() === "" ? NaN : Number(t)),
          () => NaN,
        );
      await waitUntil(async () => (await niceNow()) === normal, "the base's command raised to the change's priority");
      await writeFile(path.join(root, "job", "go"), "");
      expect(await result).toMatchObject({ ok: true });
      await run.done;
      expect(Number(await readFile(path.join(base, "niceness"), "utf8"))).toBe(normal);
    },
  );

  it("while the change's own checks hold it, the base starts no command; it goes on once released", async () => {
    const ran: string[] = [];
    let madeBase!: () => void;
    const checkedOut = new Promise<void>((resolve) => (madeBase = resolve));
    const deps = depsOf([], ran);
    const run = startBaseline(checkout, specs, 10_000, {
      ...deps,
      checkoutBase: async (sha, dir, signal) => (await deps.checkoutBase(sha, dir, signal), madeBase()),
    });
    const release = run.hold();
    await checkedOut;
    // The change's own command, a real process: the base's setup would have started long before it ends.
    expect((await exec.run({ command: "true", cwd: checkout })).exitCode).toBe(0);
    expect(ran).toEqual([]);
    release();
    await run.done;
    expect(ran).toEqual(["sh setup.sh", "sh test.sh"]);
  });

  it("while the run waits for one of its results, the base's commands run at normal priority; then it is held again", async () => {
    const sent: string[] = [];
    const two: CheckCommandSpec[] = [...specs, { kind: "test", command: "echo second", asWritten: true }];
    const run = startBaseline(checkout, two, 10_000, {
      ...depsOf([], []),
      checkExecFor: () => ({
        run: (req) => (sent.push(`${req.command.split("\n").at(-1)} ${req.priority}`), exec.run(req)),
      }),
    });
    const release = run.hold();
    expect(await run.lookup(two[2]!)).toMatchObject({ ok: false, exitCode: 1 });
    // The change's next command, a real process: the base's next one would have started long before it ends.
    expect((await exec.run({ command: "true", cwd: checkout })).exitCode).toBe(0);
    // Said in so many words: the base's exec gives a request without one its own priority, background.
    expect(sent).toEqual(["sh setup.sh normal", "sh test.sh normal"]);
    release();
    await run.done;
    expect(sent.at(-1)).toBe("echo second background");
  });

  it("a held base goes on at once when the run waits for one of its results", async () => {
    const ran: string[] = [];
    const run = startBaseline(checkout, specs, 10_000, depsOf([], ran));
    const release = run.hold();
    expect(await run.lookup(specs[2]!)).toMatchObject({ ok: false, exitCode: 1 });
    expect(ran).toEqual(["sh setup.sh", "sh test.sh"]);
    release();
    await run.done;
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

describe("stop(): the job ends its base run before removing the checkout", () => {
  let root: string;
  let checkout: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "baseline-stop-"));
    checkout = path.join(root, "job", "checkout");
    await mkdir(checkout, { recursive: true });
    await git.run(checkout, ["init", "--quiet"]);
    // The lint passes at once; the test writes its process id and sleeps until killed.
    await writeFile(path.join(checkout, "slow.sh"), "echo $$ > pid\nexec sleep 3600\n");
    await git.run(checkout, ["add", "."]);
    await git.run(checkout, ["commit", "--quiet", "-m", "base"]);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const done: CheckCommandSpec = { kind: "test", command: "true", asWritten: true };
  const slow: CheckCommandSpec = { kind: "test", command: "sh slow.sh", asWritten: true };
  const depsOf = (o: { errors: unknown[]; finishWithinMs: number; ran?: string[]; signal?: AbortSignal }) => ({
    baseSha: () => git.headSha(checkout),
    checkoutBase: async (sha: string, dir: string) => {
      await git.run(checkout, ["worktree", "add", "--detach", "--quiet", dir, sha]);
    },
    // The command as written: the last line of the script the check runner wraps around it.
    checkExecFor: () => ({
      run: (req: ExecRequest) => (o.ran?.push(req.command.split("\n").at(-1)!), exec.run(req)),
    }),
    cacheDir: path.join(root, "cache"),
    signal: o.signal ?? new AbortController().signal,
    finishWithinMs: o.finishWithinMs,
    onError: (e: unknown) => void o.errors.push(e),
  });
  const cachedKeys = async () => {
    const [file] = await readdir(path.join(root, "cache"));
    return Object.keys(
      (JSON.parse(await readFile(path.join(root, "cache", file!), "utf8")) as { results: object }).results,
    );
  };

  it("a command still running when the run ends goes on, at normal priority, and is kept: the next run on the same base runs nothing", async () => {
    const errors: unknown[] = [];
    // The base's command waits for the test's word (given only after the stop), noting its shell's nice value, then
    // notes that of a process it starts.
    const light: CheckCommandSpec = {
      kind: "test",
      command:
        "touch started; while [ ! -e ../go ]; do cut -d' ' -f19 /proc/$$/stat > now; sleep 0.05; done; cut -d' ' -f19 /proc/self/stat > niceness",
      asWritten: true,
    };
    const ran: string[] = [];
    const run = startBaseline(checkout, [done, light], 600_000, depsOf({ errors, ran, finishWithinMs: 600_000 }));
    const base = path.join(root, "job", "base");
    await waitUntil(() => existsSync(path.join(base, "started")), "the base's command started");
    run.stop();
    // The raise is applied while the command runs (under load, after its next process could start): the word waits
    // until its shell shows it. An empty read is the file between its truncation and its write, not a nice value.
    if (process.getuid?.() === 0)
      await waitUntil(
        async () => (await readFile(path.join(base, "now"), "utf8").catch(() => "")).trim() === "0",
        "the base's command raised to normal priority at the stop",
      );
    await writeFile(path.join(root, "job", "go"), "");
    await run.done;
    expect(await run.lookup(light)).toMatchObject({ ok: true });
    expect(errors).toEqual([]);
    expect(await cachedKeys()).toHaveLength(2);
    // Raising a priority needs CAP_SYS_NICE: where the tests do not run as root, the app could not either.
    if (process.getuid?.() === 0) expect(Number(await readFile(path.join(base, "niceness"), "utf8"))).toBe(0);

    const again: string[] = [];
    const next = startBaseline(checkout, [done, light], 600_000, depsOf({ errors, ran: again, finishWithinMs: 0 }));
    expect(await next.lookup(light)).toMatchObject({ ok: true });
    expect(await next.lookup(done)).toMatchObject({ ok: true });
    await next.done;
    expect({ first: ran, again }).toEqual({ first: ["true", light.command], again: [] });
  });

  it("a cancelled job stops the command under way at once, whatever time a finishing command is given", async () => {
    const errors: unknown[] = [];
    const job = new AbortController();
    const run = startBaseline(
      checkout,
      [slow],
      600_000,
      depsOf({ errors, finishWithinMs: 600_000, signal: job.signal }),
    );
    const pidFile = path.join(root, "job", "base", "pid");
    await waitUntil(
      () => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "",
      "the base's command started",
    );
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    run.stop();
    expect(alive(pid)).toBe(true);
    job.abort();
    await run.done;
    expect(alive(pid)).toBe(false);
    expect(await run.lookup(slow)).toBeNull();
    expect(errors).toEqual([]);
  });

  it("a command that does not finish in the time it is given is killed; only what finished before is kept, no error is reported, and the checkout is then removed cleanly", async () => {
    const errors: unknown[] = [];
    const run = startBaseline(checkout, [done, slow], 600_000, depsOf({ errors, finishWithinMs: 100 }));
    expect(await run.lookup(done)).toMatchObject({ ok: true });
    const pidFile = path.join(root, "job", "base", "pid");
    await waitUntil(
      () => existsSync(pidFile) && readFileSync(pidFile, "utf8").trim() !== "",
      "the base's command started",
    );
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    expect(alive(pid)).toBe(true);
    run.stop();
    await run.done;
    expect(alive(pid)).toBe(false);
    expect(await run.lookup(slow)).toBeNull();
    expect(errors).toEqual([]);
    // Only the command that finished is kept; the stopped one runs again next time.
    expect(await cachedKeys()).toHaveLength(1);
    await rm(path.join(root, "job"), { recursive: true });
    expect(existsSync(path.join(root, "job"))).toBe(false);
  });
});

describe("the base's cache keeps no output: only what the comparison needs, readable by its owner only", () => {
  let root: string;
  let checkout: string;
  let cacheDir: string;
  const PRIVATE = "correct-horse-battery-staple-4711";
  const TOKEN = `ghp_${"A1b2C3d4".repeat(5)}`;
  // A failing test that prints an environment's secret and a private file's content, as a repository's test could.
  const script = `echo "--- FAIL: TestLeak (0.00s)"\necho "token=${TOKEN}"\ncat private.txt\necho "go: go.mod file not found in current directory"\necho FAIL\nexit 1\n`;
  const spec: CheckCommandSpec = { kind: "test", command: "sh test.sh", asWritten: true };
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "baseline-cache-"));
    checkout = path.join(root, "job", "checkout");
    cacheDir = path.join(root, "cache", "baseline", "o", "r");
    await mkdir(checkout, { recursive: true });
    await git.run(checkout, ["init", "--quiet"]);
    await writeFile(path.join(checkout, "test.sh"), script);
    await writeFile(path.join(checkout, "private.txt"), `${PRIVATE}\n`);
    await git.run(checkout, ["add", "."]);
    await git.run(checkout, ["commit", "--quiet", "-m", "base"]);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });
  const depsOf = (ran: string[]): BaselineDeps => ({
    baseSha: () => git.headSha(checkout),
    checkoutBase: async (sha, dir) => {
      // Each run of a real job has its own folder; these runs share one.
      await rm(dir, { recursive: true, force: true });
      await git.run(checkout, ["worktree", "prune"]);
      await git.run(checkout, ["worktree", "add", "--detach", "--quiet", dir, sha]);
    },
    // The command as written: the last line of the script the check runner wraps around it.
    checkExecFor: () => ({ run: (req) => (ran.push(req.command.split("\n").at(-1)!), exec.run(req)) }),
    cacheDir,
    signal: new AbortController().signal,
    onError: (error) => {
      throw error;
    },
  });
  const cacheFile = async () => path.join(cacheDir, `${await git.headSha(checkout)}.json`);

  it("holds neither a secret the command printed nor a file's content, and still tells the same failure", async () => {
    const run = startBaseline(checkout, [spec], 10_000, depsOf([]));
    const base = await run.lookup(spec);
    await run.done;
    const onDisk = await readFile(await cacheFile(), "utf8");
    for (const leaked of [PRIVATE, TOKEN, "TestLeak", "go.mod", "token="]) expect(onDisk).not.toContain(leaked);
    expect(JSON.stringify(base)).not.toContain(PRIVATE);
    // The change's run of the same test, failing the same way: the base's, worded from the change's own output.
    const head = { ok: false, exitCode: 1, output: `--- FAIL: TestLeak (0.01s)\ntoken=${TOKEN}\n${PRIVATE}\nFAIL` };
    expect(compareWithBaseline(head, base, run.roots)).toEqual({
      kind: "pre-existing",
      summary: "1 failing test: TestLeak",
      tests: ["TestLeak"],
    });
    const other = { ok: false, exitCode: 1, output: "--- FAIL: TestNew (0.01s)\nFAIL" };
    expect(compareWithBaseline(other, base, run.roots)).toEqual({ kind: "new" });
  });

  it("is a 0600 file in a 0700 folder", async () => {
    await mkdir(cacheDir, { recursive: true, mode: 0o755 });
    await chmod(cacheDir, 0o755);
    const run = startBaseline(checkout, [spec], 10_000, depsOf([]));
    await run.done;
    expect((await stat(cacheDir)).mode & 0o777).toBe(0o700);
    expect((await stat(await cacheFile())).mode & 0o777).toBe(0o600);
  });

  it.each([
    ["not JSON", "{ not json", 0o600],
    [
      "an older version's file with raw output",
      '{"k":{"ok":false,"normalised":"go.mod","summary":"x","failing":null}}',
      0o600,
    ],
    ["a result of the wrong shape", '{"version":2,"results":{"KEY":{"ok":false,"summary":"raw text"}}}', 0o600],
    ["a group- and world-readable file", "VALID", 0o644],
  ])("a cache file that is %s is not read: the command runs again", async (_name, content, mode) => {
    // A valid file first, to learn its form; then the file is replaced by the case's.
    const first = startBaseline(checkout, [spec], 10_000, depsOf([]));
    await first.done;
    const file = await cacheFile();
    const valid = await readFile(file, "utf8");
    const key = Object.keys((JSON.parse(valid) as { results: object }).results)[0]!;
    await rm(file);
    await writeFile(file, content === "VALID" ? valid : content.replace("KEY", key), { mode });
    await chmod(file, mode);
    const ran: string[] = [];
    const again = startBaseline(checkout, [spec], 10_000, depsOf(ran));
    const result = await again.lookup(spec);
    await again.done;
    expect(ran).toEqual(["sh test.sh"]);
    expect(result).toMatchObject({ ok: false, exitCode: 1 });
    // Replaced by a good file of the owner's.
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readFile(file, "utf8")).not.toContain("go.mod");
  });

  it("a link in the cache's place is not followed", async () => {
    const first = startBaseline(checkout, [spec], 10_000, depsOf([]));
    await first.done;
    const file = await cacheFile();
    const elsewhere = path.join(root, "elsewhere.json");
    await rename(file, elsewhere);
    await symlink(elsewhere, file);
    const ran: string[] = [];
    const again = startBaseline(checkout, [spec], 10_000, depsOf(ran));
    await again.done;
    expect(ran).toEqual(["sh test.sh"]);
  });
});
