import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { runCheckCommand } from "../../src/checks/run-check-command.js";
import { ciToolInstall } from "../../src/checks/discover/imply-tool-installs.js";
import { installScript, provideTool, wantsNetwork } from "../../src/checks/tool-shelf.js";
import { goesOnNote } from "../../src/coder/runner-stand-ins.js";
import { createExec } from "../../src/exec/create-exec.js";
import type { Exec, ToolShelfPlace } from "../../src/exec/types.js";
import { dirOutsideTmp } from "../helpers/dir-outside-tmp.js";

/**
 * The tools shelf with real processes and a fake `python3` on PATH standing in for pip (no index is reachable here):
 * what it does depends on a `mode` file beside it, and each call is counted in `calls`. Its folder is outside /tmp
 * and the home, which the install's PATH drops (also when the project was cloned below /tmp).
 */
const FAKE_PYTHON = `#!/bin/sh
here=$(dirname "$0")
echo "$PWD|$HOME|$PIP_CACHE_DIR|$PYTHONUSERBASE|$*" >> "$here/calls"
case "$(cat "$here/mode")" in
  ok)
    mkdir -p "$PYTHONUSERBASE/bin" "$PYTHONUSERBASE/lib/python3/site-packages/uv"
    printf '#!/bin/sh\\necho real uv 0.5\\n' > "$PYTHONUSERBASE/bin/uv"; chmod +x "$PYTHONUSERBASE/bin/uv"
    echo "Successfully installed uv-0.5" ;;
  offline)
    echo "WARNING: Retrying (Retry(total=0)) after connection broken by 'NewConnectionError(... Failed to establish a new connection: [Errno -2] Name or service not known)': /simple/uv/"
    echo "ERROR: Could not find a version that satisfies the requirement uv (from versions: none)"
    echo "ERROR: No matching distribution found for uv"
    exit 1 ;;
  no-such-version)
    echo "ERROR: Could not find a version that satisfies the requirement uv==99 (from versions: 0.4, 0.5)"
    echo "ERROR: No matching distribution found for uv==99"
    exit 1 ;;
esac
`;

const UV = { name: "uv", requirement: "uv" };
const IMPLIED = `PATH="$HOME/.local/bin:$PATH"; command -v uv >/dev/null 2>&1 || PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --user --retries 1 uv`;

describe("the tools shelf (real processes, a fake pip)", () => {
  let root: string;
  let bin: string;
  let shelf: string;
  let jobs = 0;
  beforeEach(async () => {
    root = await dirOutsideTmp(".tool-shelf-");
    bin = path.join(root, "bin");
    shelf = path.join(root, "shelf");
    await mkdir(bin);
    await writeFile(path.join(bin, "python3"), FAKE_PYTHON, { mode: 0o755 });
    await mode("ok");
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  const mode = (m: string) => writeFile(path.join(bin, "mode"), m);
  const calls = async () =>
    (await readFile(path.join(bin, "calls"), "utf8").catch(() => "")).split("\n").filter(Boolean);
  /** A job: its own home (as bubblewrap mounts it), an exec whose PATH starts with the home's `~/.local/bin`. */
  const job = async (retryAfterMs = 30 * 60_000) => {
    const home = path.join(root, `job-${++jobs}`, "home");
    await mkdir(home, { recursive: true });
    const exec = createExec({ sourceEnv: { PATH: `${home}/.local/bin:${bin}:/usr/bin:/bin`, HOME: home } });
    const place: ToolShelfPlace = { dir: shelf, home, retryAfterMs };
    return { home, exec, place };
  };
  const uvIn = (home: string) => readFile(path.join(home, ".local", "bin", "uv"), "utf8");

  it("installs a tool once per repository: later jobs get a copy from the shelf, with no install", async () => {
    const first = await job();
    expect(await provideTool(first.exec, first.place, UV)).toEqual({ kind: "installed" });
    expect(await uvIn(first.home)).toContain("real uv 0.5");
    const second = await job();
    expect(await provideTool(second.exec, second.place, UV)).toMatchObject({ kind: "restored" });
    expect(await uvIn(second.home)).toContain("real uv 0.5");
    expect(await calls()).toHaveLength(1);
    // Found by the job's later commands as before: `~/.local/bin` of the job's home.
    const r = await second.exec.run({ command: "uv", shell: true, cwd: root, timeoutMs: 10_000 });
    expect(r.output).toContain("real uv 0.5");
  });

  it("installs with nothing a job could have written: its own folder, home, pip cache; no python3 from the job's home", async () => {
    const { home, exec, place } = await job();
    await mkdir(path.join(home, ".local", "bin"), { recursive: true });
    const planted = path.join(root, "planted-ran");
    await writeFile(path.join(home, ".local", "bin", "python3"), `#!/bin/sh\ntouch ${planted}\n`, { mode: 0o755 });
    expect(await provideTool(exec, place, UV)).toEqual({ kind: "installed" });
    const [cwd, installHome, pipCache, userBase, args] = (await calls())[0]!.split("|");
    expect(path.dirname(cwd!)).toBe(shelf);
    expect(installHome).toBe(`${cwd}/home`);
    expect(pipCache).toBe(`${cwd}/cache`);
    expect(userBase).toBe(`${cwd}/user`);
    expect(args).toBe("-m pip install --user --retries 1 --no-warn-script-location uv");
    await expect(readFile(planted)).rejects.toThrow();
  });

  it("keeps the shelf's copy as installed whatever a job does to its own (a hostile pull request's commands)", async () => {
    const first = await job();
    await provideTool(first.exec, first.place, UV);
    await writeFile(path.join(first.home, ".local", "bin", "uv"), "#!/bin/sh\necho poisoned\n");
    const next = await job();
    await provideTool(next.exec, next.place, UV);
    expect(await uvIn(next.home)).toContain("real uv 0.5");
    expect(await uvIn(next.home)).not.toContain("poisoned");
  });

  it("installs once in a job whose change and base both ask at the same time", async () => {
    const { exec, place } = await job();
    const both = await Promise.all([provideTool(exec, place, UV), provideTool(exec, place, UV)]);
    expect(both).toEqual([{ kind: "installed" }, { kind: "installed" }]);
    expect(await calls()).toHaveLength(1);
  });

  it("raises the install to normal priority when a second step of the job joins it (the change waits on the base's)", async () => {
    const { exec, place } = await job();
    const urgent: (AbortSignal | undefined)[] = [];
    const recording: Exec = { run: (req) => (urgent.push(req.urgent), exec.run(req)) };
    const alone = await job();
    const aloneUrgent: (AbortSignal | undefined)[] = [];
    const otherShelf = { ...alone.place, dir: path.join(root, "other-shelf") };
    await provideTool({ run: (req) => (aloneUrgent.push(req.urgent), alone.exec.run(req)) }, otherShelf, UV);
    // An install nobody else waits for keeps the priority its exec gives it.
    expect(aloneUrgent.map((s) => s?.aborted)).toEqual([false]);
    // The base's run starts it (through its background exec); the change's step then asks for the same tool.
    const first = provideTool(recording, place, UV);
    const second = provideTool(exec, place, UV);
    expect(await Promise.all([first, second])).toEqual([{ kind: "installed" }, { kind: "installed" }]);
    expect(urgent.map((s) => s?.aborted)).toEqual([true]);
  });

  it("does not try an install that failed for want of the network again until the retry time has passed", async () => {
    await mode("offline");
    const t0 = new Date("2026-11-29T12:00:00Z");
    const first = await job();
    expect(await provideTool(first.exec, first.place, UV, () => t0)).toMatchObject({ kind: "failed", network: true });
    const soon = await job();
    const later = new Date(t0.getTime() + 10 * 60_000);
    expect(await provideTool(soon.exec, soon.place, UV, () => later)).toEqual({
      kind: "not-retried",
      failedAt: t0,
      retryAt: new Date(t0.getTime() + 30 * 60_000),
      error: "No matching distribution found for uv",
    });
    expect(await calls()).toHaveLength(1);
    // Past the retry time, and the index reachable again: installed, and the failure forgotten.
    await mode("ok");
    const after = await job();
    expect(await provideTool(after.exec, after.place, UV, () => new Date(t0.getTime() + 31 * 60_000))).toEqual({
      kind: "installed",
    });
    expect(await calls()).toHaveLength(2);
  });

  it("tries again at once under another network setting (an operator or a repository that allows the index)", async () => {
    await mode("offline");
    const registries = JSON.stringify(["registries", [], "", [], [], ""]);
    const first = await job();
    expect(await provideTool(first.exec, { ...first.place, network: registries }, UV)).toMatchObject({
      kind: "failed",
      network: true,
    });
    const same = await job();
    expect(await provideTool(same.exec, { ...same.place, network: registries }, UV)).toMatchObject({
      kind: "not-retried",
    });
    await mode("ok");
    const allowed = await job();
    const widened = JSON.stringify(["registries", [], "", [], ["pypi.org"], ""]);
    expect(await provideTool(allowed.exec, { ...allowed.place, network: widened }, UV)).toEqual({ kind: "installed" });
    expect(await calls()).toHaveLength(2);
  });

  it("tries again on every job when the retry time is 0, and does not remember a failure that is not the network's", async () => {
    await mode("offline");
    for (let i = 0; i < 2; i++) {
      const j = await job(0);
      expect(await provideTool(j.exec, j.place, UV)).toMatchObject({ kind: "failed", network: true });
    }
    await mode("no-such-version");
    const pinned = { name: "uv", requirement: "uv==99" };
    for (let i = 0; i < 2; i++) {
      const j = await job();
      expect(await provideTool(j.exec, j.place, pinned)).toMatchObject({ kind: "failed", network: false });
    }
    expect(await calls()).toHaveLength(4);
  });

  it("says the tool is there when the sandbox's PATH has it, and installs nothing", async () => {
    await writeFile(path.join(bin, "uv"), "#!/bin/sh\necho image uv\n", { mode: 0o755 });
    const { exec, place } = await job();
    expect(await provideTool(exec, place, UV)).toEqual({ kind: "present" });
    expect(await calls()).toHaveLength(0);
  });

  it("serves the implied step through runCheckCommand, and the status says honestly why it was not retried", async () => {
    await mode("offline");
    const shelved = async () => {
      const j = await job();
      const exec: Exec = { ...j.exec, toolShelf: async () => j.place };
      return runCheckCommand(exec, { kind: "setup", command: IMPLIED, cwd: root, timeoutMs: 60_000, tool: UV });
    };
    const failed = await shelved();
    expect(failed).toMatchObject({ ok: false, exitCode: 1, command: IMPLIED });
    expect(failed.output).toContain("No matching distribution found for uv");
    const skipped = await shelved();
    expect(skipped).toMatchObject({ ok: false, command: IMPLIED, environmentError: true });
    expect(skipped.output).toMatch(
      /^not tried again: its install failed 1 min ago for want of the network \(No matching distribution found for uv\); next try after \d\d:\d\d UTC$/,
    );
    const spec = { kind: "setup" as const, command: IMPLIED, installsRunners: ["uv"] };
    const test = {
      kind: "test" as const,
      command: "uv run pytest",
      fallback: { runner: "uv", command: "python3 -m pytest" },
    };
    expect(goesOnNote(spec, skipped, [spec, test], [])).toContain(
      "`uv` could not be installed: not tried again: its install failed",
    );
    expect(await calls()).toHaveLength(1);
    await mode("ok");
    await rm(path.join(shelf), { recursive: true });
    const ok = await shelved();
    expect(ok).toMatchObject({ ok: true, exitCode: 0, command: IMPLIED });
    expect(ok.output).toBe("`uv` installed, and kept for this repository's later jobs.");
  });

  it("serves CI's own install of one runner from the shelf: its pip line never runs, and the report keeps it", async () => {
    const line = "python3 -m pip install --upgrade pip uv";
    const tool = ciToolInstall(line)!;
    const shelved = async () => {
      const j = await job();
      const exec: Exec = { ...j.exec, toolShelf: async () => j.place };
      const report = await runCheckCommand(exec, { kind: "setup", command: line, cwd: root, timeoutMs: 60_000, tool });
      return { report, uv: await uvIn(j.home) };
    };
    const first = await shelved();
    expect(first.report).toMatchObject({ ok: true, command: line });
    expect(first.report.output).toBe("`uv` installed, and kept for this repository's later jobs.");
    const second = await shelved();
    expect(second.report).toMatchObject({ ok: true, command: line });
    expect(second.report.output).toMatch(/^`uv` copied from this repository's tools shelf/);
    expect(second.uv).toContain("real uv 0.5");
    // One install, the shelf's own (`--user --retries 1`, in its folder): CI's `--upgrade pip uv` never ran.
    const ran = await calls();
    expect(ran).toHaveLength(1);
    expect(ran[0]).toMatch(/\|-m pip install --user --retries 1 --no-warn-script-location uv$/);
  });

  it("tells a network failure from a version that does not exist", () => {
    expect(wantsNetwork("ERROR: No matching distribution found for uv==99")).toBe(false);
    expect(
      wantsNetwork("ProxyError('Cannot connect to proxy.', OSError('Tunnel connection failed: 403 Forbidden'))"),
    ).toBe(true);
  });

  it("drops the job's home and /tmp from the install's PATH, and keeps everything with no HOME", async () => {
    const script = installScript(UV).split("\n")[0]!;
    const exec = createExec({ sourceEnv: { PATH: "/home/u/.local/bin:/tmp/x:/usr/bin:/bin", HOME: "/home/u" } });
    const r = await exec.run({
      command: `${script}\nexport PATH="$p"; echo "$PATH"`,
      shell: true,
      cwd: "/",
      timeoutMs: 5_000,
    });
    expect(r.output.trim()).toBe("/usr/bin:/bin");
    const noHome = createExec({ sourceEnv: { PATH: "/usr/local/bin:/usr/bin:/bin" } });
    const r2 = await noHome.run({ command: `${script}\necho "$p"`, shell: true, cwd: "/", timeoutMs: 5_000 });
    expect(r2.output.trim()).toBe("/usr/local/bin:/usr/bin:/bin");
  });
});
