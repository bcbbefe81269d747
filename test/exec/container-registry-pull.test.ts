import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { runCheckCommand } from "../../src/checks/run-check-command.js";
import { baseEnv } from "../../src/exec/base-env.js";
import { engineProgram, globalArgs, imageExistsArgs, type ContainerEngine } from "../../src/exec/container-engine.js";
import { createContainerSession, type ContainerSession } from "../../src/exec/container-sandbox.js";
import { createExec } from "../../src/exec/create-exec.js";
import { describeWith } from "../helpers/needs.js";
import { ensureTestImage, IMAGE_MARKER, TEST_IMAGE } from "../helpers/podman-test-image.js";
import { waitUntil } from "../helpers/wait-until.js";

/**
 * A real pull: Debian's docker-registry serves a registry on 127.0.0.1 (plain HTTP, marked insecure in a
 * registries.conf the engine is given with AIDER_BOT_CONTAINER_REGISTRIES_CONF), the test image is pushed to it, and
 * container mode runs an image named only by that registry: pulled by the first job, reused by the next.
 */
const exec = createExec({ sourceEnv: process.env });
const podman = (...args: string[]) =>
  spawnSync("podman", ["--runtime", "runc", "--cgroup-manager", "cgroupfs", ...args], { encoding: "utf8" });

describeWith(["podman", "registry"], "container mode pulls the repository's image from a registry once", () => {
  let dir: string;
  let registry: ChildProcess;
  let registryLog = "";
  let port: number;
  let image: string;
  let engine: ContainerEngine;
  let checkout: string;
  const sessions: ContainerSession[] = [];
  /** The registry's answers to manifest requests for the image: one per pull (HEAD or GET), none for a run that reuses it. */
  const manifestRequests = () =>
    registryLog.split("\n").filter((line) => /"(GET|HEAD) \/v2\/aider-bot-test-python\/manifests\//.test(line)).length;
  const open = (name: string) => {
    const s = createContainerSession(
      exec,
      { image: name, imageSource: "the test", checkout, cacheKey: `registry/${process.pid}` },
      { engine, network: false, clientEnv: baseEnv(process.env) },
    );
    sessions.push(s);
    return s;
  };

  beforeAll(async () => {
    ensureTestImage();
    dir = await mkdtemp(path.join(os.tmpdir(), "aider-bot-registry-"));
    port = await freePort();
    image = `127.0.0.1:${port}/aider-bot-test-python:3`;
    await writeFile(
      path.join(dir, "config.yml"),
      `version: 0.1\nlog:\n  level: info\nstorage:\n  filesystem:\n    rootdirectory: ${path.join(dir, "data")}\nhttp:\n  addr: 127.0.0.1:${port}\n`,
    );
    await writeFile(
      path.join(dir, "registries.conf"),
      `[[registry]]\nlocation = "127.0.0.1:${port}"\ninsecure = true\n`,
    );
    registry = spawn("docker-registry", ["serve", path.join(dir, "config.yml")], {
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    for (const stream of [registry.stdout!, registry.stderr!])
      stream.setEncoding("utf8").on("data", (chunk: string) => (registryLog += chunk));
    await waitUntil(
      async () => (await fetch(`http://127.0.0.1:${port}/v2/`).catch(() => null))?.status === 200,
      () => `docker-registry did not answer on ${port}: ${registryLog.slice(-2000)}`,
    );
    const pushed = podman("push", "--tls-verify=false", TEST_IMAGE, image);
    if (pushed.status !== 0) throw new Error(`podman push to the local registry failed: ${pushed.stderr}`);
    // Only the registry has the image under this name: the first job must pull it.
    podman("rmi", image);
    expect(podman("image", "exists", image).status).toBe(1);
    engine = {
      kind: "podman",
      runtime: "runc",
      cgroupManager: "cgroupfs",
      registriesConf: path.join(dir, "registries.conf"),
      ulimits: ["nofile=1024:1024", "nproc=4096:4096"],
      memory: "256m",
      cpus: "1",
      pids: 128,
    };
    checkout = path.join(dir, "checkout");
    await mkdir(checkout, { recursive: true });
  });
  afterAll(async () => {
    await Promise.all(sessions.map((s) => s.close()));
    if (image) podman("rmi", image);
    podman("volume", "rm", "--force", "--all", "--filter", "name=aider-bot-cache-registry-");
    if (registry?.pid !== undefined && registry.exitCode === null) {
      const gone = new Promise((resolve) => registry.once("exit", resolve));
      process.kill(-registry.pid, "SIGTERM");
      await gone;
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("the first job pulls the image through the operator's registries.conf; the next job reuses it without asking the registry", async () => {
    const before = manifestRequests();
    const first = await open(image).run({
      command: `cat ${IMAGE_MARKER.path}`,
      shell: true,
      cwd: checkout,
      timeoutMs: 120_000,
    });
    expect(first.spawnError).toBeUndefined();
    expect(first.output).toContain(IMAGE_MARKER.content);
    expect(podman("image", "exists", image).status).toBe(0);
    const pulled = manifestRequests();
    expect(pulled).toBeGreaterThan(before);
    const second = await open(image).run({
      command: `cat ${IMAGE_MARKER.path}`,
      shell: true,
      cwd: checkout,
      timeoutMs: 60_000,
    });
    expect(second.output).toContain(IMAGE_MARKER.content);
    expect(manifestRequests()).toBe(pulled);
    // After a restart (this process's memory of the image gone) the session's first step is the engine's own check,
    // which finds the image in the engine's storage without asking the registry.
    const check = await exec.run({
      command: engineProgram(engine),
      args: [...globalArgs(engine), ...imageExistsArgs(engine, image)],
      cwd: "/",
      timeoutMs: 30_000,
    });
    expect(check.exitCode).toBe(0);
    expect(manifestRequests()).toBe(pulled);
  });

  it("a tag the registry does not have: the check says the pull failed, with the registry's answer, and what to do", async () => {
    const missing = `127.0.0.1:${port}/aider-bot-test-python:no-such-tag`;
    const report = await runCheckCommand(open(missing), {
      kind: "setup",
      command: "pip install -e .",
      cwd: checkout,
      timeoutMs: 60_000,
    });
    expect(report.ok).toBe(false);
    expect(report.environmentError).toBe(true);
    expect(report.output).toContain(`the image \`${missing}\` (from the test) could not be pulled: `);
    expect(report.output).toMatch(/manifest unknown/i);
    expect(report.output).toContain("set `sandbox.image` in .github/aider.yml");
    // A pull failure, said as one: the command was not run; no "could not be started", no tool to install.
    expect(report.kind).toBe("setup");
    expect(report.output).toMatch(/^The setup command `pip install -e \.` was not run: the image /);
    expect(report.output).not.toMatch(/could not be started|tool is installed/);
    expect(report.notRun).toContain(`the image \`${missing}\` (from the test) could not be pulled`);
  });
});

/** A TCP port nothing listens on right now (the OS picks it). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
