import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { runCheckCommand } from "../../src/checks/run-check-command.js";
import { cacheVolumeName, type ContainerEngine } from "../../src/exec/container-engine.js";
import { createContainerSession, type ContainerSession } from "../../src/exec/container-sandbox.js";
import { BACKGROUND_CPU_SHARES } from "../../src/exec/priority.js";
import { sweepContainers } from "../../src/exec/sweep-containers.js";
import { createExec } from "../../src/exec/create-exec.js";
import { baseEnv } from "../../src/exec/base-env.js";
import { createSandboxedExec } from "../../src/exec/sandbox.js";
import { describeWith, has } from "../helpers/needs.js";
import { ensureTestImage, IMAGE_MARKER, TEST_IMAGE } from "../helpers/podman-test-image.js";
import { waitUntil } from "../helpers/wait-until.js";

const engine: ContainerEngine = {
  kind: "podman",
  runtime: "runc",
  cgroupManager: "cgroupfs",
  ulimits: ["nofile=1024:1024", "nproc=4096:4096"],
  memory: "256m",
  cpus: "1",
  pids: 128,
};
const SECRET = `container-secret-${process.pid}-${Date.now()}`;
// The app's environment as a job process has it: the allow-list keeps HOME and PATH, never the secret.
const APP_HOME = path.join(os.tmpdir(), `app-home-${process.pid}`);
const sourceEnv = { ...process.env, HOME: APP_HOME, AIDER_TEST_SECRET: SECRET, OPENAI_API_KEY: SECRET };
const exec = createExec({ sourceEnv });
const podman = (...args: string[]) =>
  spawnSync("podman", ["--runtime", "runc", "--cgroup-manager", "cgroupfs", ...args], { encoding: "utf8" });
const containersNamed = (name: string) =>
  podman("ps", "-a", "--filter", `name=^${name}$`, "--format", "{{.Names}}").stdout.trim();

describeWith("podman", "container sandbox (real podman, an image built from the host's files)", () => {
  let root: string;
  let checkout: string;
  const sessions: ContainerSession[] = [];
  const open = (cacheKey = `test/${process.pid}`, image = TEST_IMAGE, network = false, perExec = false) => {
    const s = createContainerSession(
      exec,
      { image, imageSource: "the test", checkout, cacheKey },
      { engine, network, ...(perExec ? {} : { clientEnv: baseEnv(sourceEnv) }) },
    );
    sessions.push(s);
    return s;
  };
  const sh = (
    s: ContainerSession,
    command: string,
    extra: { timeoutMs?: number; signal?: AbortSignal; cwd?: string } = {},
  ) =>
    s.run({
      command,
      shell: true,
      cwd: extra.cwd ?? checkout,
      timeoutMs: extra.timeoutMs ?? 60_000,
      ...(extra.signal ? { signal: extra.signal } : {}),
    });

  beforeAll(async () => {
    ensureTestImage();
    // Under the project folder: a sibling of the checkout holds a secret the container must not see.
    root = await mkdtemp(path.join(process.cwd(), ".ctr-test-"));
    checkout = path.join(root, "work", "job-1", "checkout");
    await mkdir(path.join(checkout, ".git"), { recursive: true });
    await writeFile(path.join(checkout, ".git", "config"), "[core]\n\tbare = false\n");
    await writeFile(path.join(checkout, "app.py"), "print('hello from the checkout')\n");
    await writeFile(path.join(root, "work", "secret.txt"), SECRET);
  });
  afterAll(async () => {
    await Promise.all(sessions.map((s) => s.close()));
    for (const k of [`test/${process.pid}`, `test/${process.pid}#fork-pr-1`])
      podman("volume", "rm", "--force", volumeOf(k));
    await rm(root, { recursive: true, force: true });
  });

  it("runs the command in the repository's image: its marker and its `python` are there, which the host's bubblewrap sandbox lacks", async () => {
    const s = open();
    const r = await sh(s, `cat ${IMAGE_MARKER.path} && python --version && python app.py`);
    expect(r.spawnError).toBeUndefined();
    expect(r.exitCode).toBe(0);
    expect(r.output).toContain(IMAGE_MARKER.content);
    expect(r.output).toMatch(/Python 3\.11/);
    expect(r.output).toContain("hello from the checkout");
    expect(await s.sandboxMode()).toBe(`container (image ${TEST_IMAGE}, from the test)`);
    if (has("bubblewrap")) {
      const host = await createSandboxedExec(exec, { hide: [os.homedir()], network: false }).run({
        command: `cat ${IMAGE_MARKER.path}; python --version`,
        shell: true,
        cwd: checkout,
        timeoutMs: 30_000,
      });
      expect(host.exitCode).toBe(127);
      expect(host.output).not.toContain(IMAGE_MARKER.content);
    }
  });

  it("sees only the checkout (writable, its .git read-only), none of the app's environment, no network, and the limits", async () => {
    const s = open();
    const r = await sh(
      s,
      `echo made > made.txt; ls -a ..; cat ../../secret.txt; echo x >> .git/config && echo GIT-WRITTEN; echo "--- env"; env; echo "--- net"; ls /sys/class/net`,
    );
    expect(r.exitCode).toBe(0);
    expect(await readFile(path.join(checkout, "made.txt"), "utf8")).toBe("made\n");
    expect(r.output).not.toContain(SECRET);
    expect(r.output).toMatch(/Read-only file system/);
    expect(r.output).not.toContain("GIT-WRITTEN");
    const env = r.output.split("--- env")[1]!.split("--- net")[0];
    expect(env).not.toContain(APP_HOME);
    expect(env).not.toContain(process.env.PATH);
    expect(env).not.toMatch(/AIDER_TEST_SECRET|OPENAI_API_KEY/);
    expect(env).toContain("PIP_CACHE_DIR=/aider-cache/pip");
    expect(env).toContain("npm_config_cache=/aider-cache/npm");
    expect(env).toContain("npm_config_audit=false");
    expect(env).toContain("PIP_DISABLE_PIP_VERSION_CHECK=1");
    expect(r.output.split("--- net")[1]!.trim().split(/\s+/)).toEqual(["lo"]);
    const inspect = JSON.parse(podman("inspect", s.name).stdout)[0] as {
      HostConfig: { Memory: number; PidsLimit: number; NanoCpus: number; CapAdd: string[] };
    };
    expect(inspect.HostConfig.Memory).toBe(256 * 1024 * 1024);
    expect(inspect.HostConfig.PidsLimit).toBe(128);
    expect(inspect.HostConfig.NanoCpus).toBe(1_000_000_000);
  });

  it("one $HOME and TMPDIR per job, kept across its commands (what setup installs there is there for the tests), and not another job's", async () => {
    const s = open();
    const setup = await sh(
      s,
      'mkdir -p "$HOME/.local/bin" && printf "#!/bin/sh\\necho tool-from-setup\\n" > "$HOME/.local/bin/tool" && chmod +x "$HOME/.local/bin/tool" && echo kept > "${TMPDIR:-/tmp}/between-commands" && echo "home=$HOME"',
    );
    expect(setup.exitCode).toBe(0);
    const home = /home=(\S+)/.exec(setup.output)?.[1];
    expect(home).toBeTruthy();
    const later = await sh(s, '"$HOME/.local/bin/tool" && cat "${TMPDIR:-/tmp}/between-commands" && echo "home=$HOME"');
    expect(later.exitCode).toBe(0);
    expect(later.output).toContain("tool-from-setup");
    expect(later.output).toContain("kept");
    expect(later.output).toContain(`home=${home}`);
    // Another job (its own session, its own container) starts from the image: nothing of the first job's.
    const other = await sh(
      open(`test/${process.pid}`),
      'ls "$HOME/.local/bin/tool" "${TMPDIR:-/tmp}/between-commands" 2>&1; true',
    );
    expect(other.output).toMatch(/No such file/);
    expect(other.output).not.toContain("tool-from-setup");
  });

  it("a timeout removes the container and every process in it; the next command gets a fresh one", async () => {
    const s = open();
    expect((await sh(s, "true")).exitCode).toBe(0);
    expect(containersNamed(s.name)).toBe(s.name);
    const r = await sh(s, "sleep 300 & sleep 300", { timeoutMs: 1_000 });
    expect(r.timedOut).toBe(true);
    expect(containersNamed(s.name)).toBe("");
    const report = await runCheckCommand(s, { kind: "test", command: "sleep 300", cwd: checkout, timeoutMs: 1_000 });
    expect(report.timedOut).toBe(true);
    expect(report.output).toContain("did not finish within 1 s");
    expect(containersNamed(s.name)).toBe("");
    expect((await sh(s, "echo again")).output).toContain("again");
  });

  it("a cancel (AbortSignal) removes the container at once, and close() removes it for good", async () => {
    const s = open();
    expect((await sh(s, "true")).exitCode).toBe(0);
    const cancel = new AbortController();
    const running = sh(s, "sleep 300", { signal: cancel.signal });
    // Abort once the command runs inside (its process shows in the container).
    await waitUntil(
      () => podman("top", s.name).stdout.includes("sleep 300"),
      () => `sleep 300 never showed in the container:\n${podman("top", s.name).stdout}`,
    );
    cancel.abort();
    await running;
    expect(containersNamed(s.name)).toBe("");
    expect((await sh(s, "true")).exitCode).toBe(0);
    await s.close();
    expect(containersNamed(s.name)).toBe("");
    expect((await sh(s, "true")).spawnError).toMatch(/already removed/);
  });

  it("without the runner session (one engine exec per command): the same image, output and exit code, and a timeout removes the container", async () => {
    const s = open(undefined, TEST_IMAGE, false, true);
    const r = await sh(s, `cat ${IMAGE_MARKER.path}; exit 3`);
    expect(r.output).toContain(IMAGE_MARKER.content);
    expect(r.exitCode).toBe(3);
    expect((await sh(s, "sleep 300", { timeoutMs: 1_000 })).timedOut).toBe(true);
    expect(containersNamed(s.name)).toBe("");
  });

  it("background work (the base's container) weighs less, and is raised to the default weight once the run waits for it", async () => {
    const s = createContainerSession(
      exec,
      { image: TEST_IMAGE, imageSource: "the test", checkout, cacheKey: `test/${process.pid}` },
      { engine, network: false, clientEnv: baseEnv(sourceEnv), priority: "background" },
    );
    sessions.push(s);
    // The container's own CPU weight, as its cgroup says (cgroup v1: the shares; v2: the weight they become).
    const shares = "cat /sys/fs/cgroup/cpu/cpu.shares 2>/dev/null || cat /sys/fs/cgroup/cpu.weight";
    const normal = (await sh(open(), shares)).output.trim();
    const before = (await sh(s, shares)).output.trim();
    expect({ before, normal }).toEqual(
      existsSync("/sys/fs/cgroup/cpu/cpu.shares")
        ? { before: String(BACKGROUND_CPU_SHARES), normal: "1024" }
        : { before: expect.not.stringMatching(`^${normal}$`), normal },
    );
    // The command under way waits until its container's weight changes (at most 30 s), then prints it.
    const urgent = new AbortController();
    const waiting = s.run({
      command: `touch raise-started; i=0; while [ "$(${shares})" = ${before} ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; ${shares}`,
      shell: true,
      cwd: checkout,
      timeoutMs: 60_000,
      priority: "background",
      urgent: urgent.signal,
    });
    await waitUntil(() => existsSync(path.join(checkout, "raise-started")), "the command did not start");
    urgent.abort();
    expect((await waiting).output.trim()).toBe(normal);
    // The container's later commands (and a fresh container, after a timeout) keep the default weight.
    expect((await sh(s, "sleep 300", { timeoutMs: 1_000 })).timedOut).toBe(true);
    expect((await sh(s, shares)).output.trim()).toBe(normal);
  });

  it("keeps the package managers' cache volume per repository across containers", async () => {
    const key = `test/${process.pid}`;
    const a = open(key);
    expect((await sh(a, "mkdir -p /aider-cache/pip && echo cached > /aider-cache/pip/wheel")).exitCode).toBe(0);
    await a.close();
    const b = open(key);
    expect((await sh(b, "cat /aider-cache/pip/wheel")).output).toContain("cached");
    const other = open(`${key}#fork-pr-1`);
    expect((await sh(other, "cat /aider-cache/pip/wheel")).exitCode).not.toBe(0);
  });

  it("an image that cannot be pulled: each command's result says what failed and what to do, and the check reports it", async () => {
    const s = open(undefined, "localhost/aider-bot-no-such-image:1");
    const report = await runCheckCommand(s, {
      kind: "setup",
      command: "pip install -e .",
      cwd: checkout,
      timeoutMs: 60_000,
    });
    expect(report.ok).toBe(false);
    expect(report.environmentError).toBe(true);
    expect(report.output).toMatch(
      /the image `localhost\/aider-bot-no-such-image:1` \(from the test\) could not be pulled: .+ set `sandbox.image` in .github\/aider.yml/,
    );
    expect(containersNamed(s.name)).toBe("");
  });
});

function volumeOf(key: string): string {
  return cacheVolumeName(key, createHash("sha256").update(key).digest("hex"));
}

describeWith("podman", "the start-up sweep of job containers", () => {
  it("removes the containers of job processes that are gone, and keeps a live one's", async () => {
    ensureTestImage();
    const root = await mkdtemp(path.join(process.cwd(), ".ctr-sweep-"));
    const checkout = path.join(root, "checkout");
    await mkdir(checkout, { recursive: true });
    const s = createContainerSession(
      exec,
      { image: TEST_IMAGE, imageSource: "the test", checkout, cacheKey: `sweep/${process.pid}` },
      { engine, network: false },
    );
    try {
      expect((await s.run({ command: "true", shell: true, cwd: checkout })).exitCode).toBe(0);
      expect(await sweepContainers(exec, engine, () => true)).toEqual([]);
      expect(containersNamed(s.name)).toBe(s.name);
      expect(await sweepContainers(exec, engine, (pid) => pid !== process.pid)).toContain(s.name);
      expect(containersNamed(s.name)).toBe("");
    } finally {
      await s.close();
      podman("volume", "rm", "--force", volumeOf(`sweep/${process.pid}`));
      await rm(root, { recursive: true, force: true });
    }
  });
});
