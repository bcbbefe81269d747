import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import pino from "pino";
import { containerTargetFor } from "../../src/app/container-target.js";
import { createCheckExec } from "../../src/app/create-check-exec.js";
import { readEnv } from "../../src/config/env.js";
import { cacheVolumeName } from "../../src/exec/container-engine.js";
import { createExec } from "../../src/exec/create-exec.js";
import type { Exec } from "../../src/exec/types.js";
import type { RunRequest } from "../../src/run/run-request.js";
import { describeWith } from "../helpers/needs.js";
import { ensureTestImage, IMAGE_MARKER, TEST_IMAGE } from "../helpers/podman-test-image.js";

const exec = createExec({ sourceEnv: process.env });
const log = pino({ level: "silent" });
const ours = () =>
  spawnSync("podman", ["ps", "-a", "--filter", `label=io.aider-bot.pid=${process.pid}`, "--format", "{{.Names}}"], {
    encoding: "utf8",
  }).stdout.trim();

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("the check exec's mode", () => {
  it.each([
    ["auto", null, null, "container (image not chosen yet; default img:1)"],
    ["auto", "podman is not installed", null, "bubblewrap"],
    [
      "auto",
      "podman is not installed",
      "bwrap is not installed",
      "unavailable: bwrap is not installed; and podman is not installed",
    ],
    [
      "container",
      "podman does not work on this host (x)",
      null,
      "unavailable: podman does not work on this host (x). Install podman (see AIDER_BOT_CONTAINER_ENGINE), or set AIDER_BOT_SANDBOX=bubblewrap",
    ],
    ["bubblewrap", null, null, "bubblewrap"],
    ["on", null, null, "bubblewrap"],
  ] as const)(
    "AIDER_BOT_SANDBOX=%s, engine problem %j, bubblewrap problem %j → %s",
    async (sandbox, engineProblem, bwrapProblem, mode) => {
      let engineAsked = false;
      const checkExec = createCheckExec(
        readEnv({ AIDER_BOT_SANDBOX: sandbox, AIDER_BOT_DEFAULT_IMAGE: "img:1" }),
        exec,
        log,
        {
          probe: async () => bwrapProblem,
          containerProbe: async () => {
            engineAsked = true;
            return engineProblem;
          },
        },
      );
      expect(await checkExec.sandboxMode!()).toBe(mode);
      // bubblewrap and on never look for an engine.
      expect(engineAsked).toBe(sandbox === "auto" || sandbox === "container");
    },
  );
});

describeWith("bubblewrap", "the check exec in bubblewrap: another checkout's commands as background work", () => {
  it("runs them at a lower CPU priority than the job's own, and every process they start too", async () => {
    const dir = await mkdtemp(path.join(process.cwd(), ".check-exec-prio-"));
    const env = readEnv({ AIDER_BOT_SANDBOX: "bubblewrap", AIDER_BOT_WORK_DIR: path.join(dir, "work") });
    const checkExec = createCheckExec(env, exec, log);
    // The nice value (field 19 of /proc/self/stat) of a process the command starts.
    const niceOf = async (on: Exec) => {
      const r = await on.run({ command: "cut -d' ' -f19 /proc/self/stat", shell: true, cwd: dir, timeoutMs: 30_000 });
      expect(r.exitCode).toBe(0);
      return Number(r.output.trim());
    };
    try {
      const own = await niceOf(checkExec);
      expect(await niceOf(checkExec.forCheckout!(dir, { priority: "background" }))).toBe(Math.min(19, own + 10));
      expect(await niceOf(checkExec.forCheckout!(dir))).toBe(own);
    } finally {
      await checkExec.close!();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describeWith("bubblewrap", "the check exec's log of repository commands", () => {
  it("has one line per labelled command: which checkout, its priority, its time and how it ended", async () => {
    const dir = await mkdtemp(path.join(process.cwd(), ".check-exec-log-"));
    const lines: Record<string, unknown>[] = [];
    const capture = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const checkExec = createCheckExec(
      readEnv({ AIDER_BOT_SANDBOX: "bubblewrap", AIDER_BOT_WORK_DIR: path.join(dir, "work") }),
      exec,
      capture,
    );
    const req = { shell: true, cwd: dir, timeoutMs: 30_000 };
    try {
      await checkExec.run({ ...req, command: "exit 3", label: "make test" });
      await checkExec.forCheckout!(dir, { priority: "background" }).run({
        ...req,
        command: "true",
        label: "make lint",
      });
      // Not a repository's check (the sandbox's own probes, git): no line.
      await checkExec.run({ ...req, command: "true" });
    } finally {
      await checkExec.close!();
      await rm(dir, { recursive: true, force: true });
    }
    expect(lines.filter((l) => l.msg === "check command finished")).toEqual([
      expect.objectContaining({ command: "make test", checkout: "own", priority: "normal", exitCode: 3 }),
      expect.objectContaining({ command: "make lint", checkout: "other", priority: "background", exitCode: 0 }),
    ]);
    expect(lines.find((l) => l.msg === "check command finished")?.ms).toEqual(expect.any(Number));
  });
});

describeWith("podman", "the check exec in container mode (real podman)", () => {
  let dir: string;
  beforeAll(async () => {
    ensureTestImage();
    dir = await mkdtemp(path.join(process.cwd(), ".check-exec-"));
    await mkdir(path.join(dir, "checkout", ".devcontainer"), { recursive: true });
    await writeFile(
      path.join(dir, "checkout", ".devcontainer", "devcontainer.json"),
      `{ // JSONC\n "image": "${TEST_IMAGE}",\n}\n`,
    );
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("runs in the image the repository's devcontainer names (an issue's run: the default branch), reports it, and leaves no container after close()", async () => {
    const env = readEnv({ AIDER_BOT_SANDBOX: "auto", AIDER_BOT_DEFAULT_IMAGE: "localhost/never-used:1" });
    const checkExec = createCheckExec(env, exec, log);
    const checkout = path.join(dir, "checkout");
    const req = {
      owner: "acme",
      repo: `web-${process.pid}`,
      target: { kind: "issue", number: 1, title: "t" },
      settings: {},
    } as unknown as RunRequest;
    const target = containerTargetFor(req, checkout, env);
    expect(target).toMatchObject({
      image: TEST_IMAGE,
      imageSource: "`image` in .devcontainer/devcontainer.json",
      cacheKey: `acme/web-${process.pid}`,
      notes: [],
    });
    checkExec.useContainer!(target);
    expect(await checkExec.sandboxMode!()).toBe(
      `container (image ${TEST_IMAGE}, from \`image\` in .devcontainer/devcontainer.json)`,
    );
    const r = await checkExec.run({
      command: `cat ${IMAGE_MARKER.path}`,
      shell: true,
      cwd: checkout,
      timeoutMs: 60_000,
    });
    expect(r.output).toContain(IMAGE_MARKER.content);
    expect(ours()).not.toBe("");
    await checkExec.close!();
    expect(ours()).toBe("");
    expect((await checkExec.run({ command: "true", shell: true, cwd: checkout })).spawnError).toMatch(/job is ending/);
    spawnSync("podman", ["volume", "rm", "--force", `aider-bot-cache-acme-web-${process.pid}`]);
  });

  it("a job's $HOME lasts across its commands; another checkout of the job (the base's) gets a container of its own: the same image and package cache, only its folder mounted, its own $HOME, removed by its close()", async () => {
    const env = readEnv({ AIDER_BOT_SANDBOX: "container", AIDER_BOT_DEFAULT_IMAGE: "localhost/never-used:1" });
    const checkExec = createCheckExec(env, exec, log);
    const checkout = path.join(dir, "job", "checkout");
    const base = path.join(dir, "job", "base");
    await mkdir(checkout, { recursive: true });
    await mkdir(base, { recursive: true });
    await writeFile(path.join(checkout, "change.txt"), "the change\n");
    await writeFile(path.join(base, "base.txt"), "the base\n");
    const cacheKey = `acme/base-${process.pid}`;
    checkExec.useContainer!({ image: TEST_IMAGE, imageSource: "the test", checkout, cacheKey });
    const sh = (on: Exec, cwd: string, command: string) =>
      on.run({ command, shell: true, cwd, timeoutMs: 60_000 }).then((r) => `${r.exitCode} ${r.output.trim()}`);
    try {
      // A setup step installs into $HOME and the package cache; the job's later commands find both.
      expect(
        await sh(
          checkExec,
          checkout,
          'mkdir -p "$HOME/.local/bin" "$npm_config_cache" && echo tool > "$HOME/.local/bin/t" && echo pkg > "$npm_config_cache/p" && echo set',
        ),
      ).toBe("0 set");
      expect(await sh(checkExec, checkout, 'cat "$HOME/.local/bin/t" change.txt')).toBe("0 tool\nthe change");

      const baseExec = checkExec.forCheckout!(base);
      expect(
        await sh(
          baseExec,
          base,
          `cat base.txt "$npm_config_cache/p" && cat ${IMAGE_MARKER.path} && ls ${checkout} 2>&1; test -e "$HOME/.local/bin/t" && echo job-home || echo own-home; echo base-home > "$HOME/b"`,
        ),
      ).toMatch(/^0 the base\npkg\nimage-marker-31\n.*No such file or directory\nown-home$/);
      expect(await sh(baseExec, base, 'cat "$HOME/b"')).toBe("0 base-home");
      expect(ours().split("\n").filter(Boolean)).toHaveLength(2);
      await baseExec.close!();
      expect(ours().split("\n").filter(Boolean)).toHaveLength(1);
      expect((await baseExec.run({ command: "true", shell: true, cwd: base })).spawnError).toMatch(/job is ending/);
      // The job's own container is untouched: its home is still there.
      expect(await sh(checkExec, checkout, 'cat "$HOME/.local/bin/t"')).toBe("0 tool");
      // A base exec still open when the job ends goes with it.
      const late = checkExec.forCheckout!(base);
      expect(await sh(late, base, "cat base.txt")).toBe("0 the base");
      expect(ours().split("\n").filter(Boolean)).toHaveLength(2);
    } finally {
      await checkExec.close!();
      spawnSync("podman", ["volume", "rm", "--force", cacheVolumeName(cacheKey, sha256(cacheKey))]);
    }
    expect(ours()).toBe("");
  });

  it("the base's checkout, as background work, gets a container of lower CPU shares than the job's own (its commands still run where the image has no `nice`)", async () => {
    const env = readEnv({ AIDER_BOT_SANDBOX: "container", AIDER_BOT_DEFAULT_IMAGE: "localhost/never-used:1" });
    const checkExec = createCheckExec(env, exec, log);
    const checkout = path.join(dir, "prio", "checkout");
    const base = path.join(dir, "prio", "base");
    await mkdir(checkout, { recursive: true });
    await mkdir(base, { recursive: true });
    const cacheKey = `acme/prio-${process.pid}`;
    checkExec.useContainer!({ image: TEST_IMAGE, imageSource: "the test", checkout, cacheKey });
    // cgroup v1's weight (default 1024), or v2's (default 100).
    const weight = "cat /sys/fs/cgroup/cpu/cpu.shares 2>/dev/null || cat /sys/fs/cgroup/cpu.weight";
    const sharesOf = async (on: Exec, cwd: string) => {
      const r = await on.run({ command: weight, shell: true, cwd, timeoutMs: 60_000 });
      expect(r.exitCode).toBe(0);
      return Number(r.output.trim());
    };
    try {
      const own = await sharesOf(checkExec, checkout);
      const onBase = await sharesOf(checkExec.forCheckout!(base, { priority: "background" }), base);
      expect(onBase).toBeLessThan(own);
    } finally {
      await checkExec.close!();
      spawnSync("podman", ["volume", "rm", "--force", cacheVolumeName(cacheKey, sha256(cacheKey))]);
    }
  });

  it("`sandbox.image` in .github/aider.yml wins over the devcontainer; a pull request's head is never read for it", () => {
    const env = readEnv({ AIDER_BOT_DEFAULT_IMAGE: "localhost/default:1" });
    const checkout = path.join(dir, "checkout");
    const issue = {
      owner: "a",
      repo: "b",
      target: { kind: "issue", number: 1, title: "t" },
      settings: { sandboxImage: "python:3.12" },
    } as unknown as RunRequest;
    expect(containerTargetFor(issue, checkout, env).image).toBe("python:3.12");
    const pr = {
      owner: "a",
      repo: "b",
      target: { kind: "pull-request", number: 2, isFork: true },
      settings: {},
    } as unknown as RunRequest;
    expect(containerTargetFor(pr, checkout, env)).toMatchObject({
      image: "localhost/default:1",
      cacheKey: "a/b#fork-pr-2",
    });
    expect(containerTargetFor(pr, checkout, env, { toolchain: { python: "3.12" } }).image).toBe(
      "docker.io/library/python:3.12",
    );
  });
});
