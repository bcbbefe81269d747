import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { runCheckCommand } from "../../src/checks/run-check-command.js";
import { baseEnv } from "../../src/exec/base-env.js";
import { cacheVolumeName, type ContainerEngine } from "../../src/exec/container-engine.js";
import {
  CONTAINER_LABEL,
  containerEngineProblem,
  createContainerSession,
  type ContainerSession,
} from "../../src/exec/container-sandbox.js";
import { createExec } from "../../src/exec/create-exec.js";
import { sweepContainers } from "../../src/exec/sweep-containers.js";
import { describeWith } from "../helpers/needs.js";
import { ensureTestImage, IMAGE_MARKER, TEST_IMAGE } from "../helpers/podman-test-image.js";
import { waitUntil } from "../helpers/wait-until.js";

/**
 * Container mode's `docker` engine against a real Docker-compatible socket: no Docker daemon runs here, so
 * `podman system service` serves Podman's Docker-compatible API on a temporary socket and the real `docker` client
 * talks to it. As root the service shares the Podman CLI's storage: the test image built by podman-test-image.ts is
 * the image the docker client sees.
 */
const SECRET = `docker-socket-secret-${process.pid}-${Date.now()}`;
const APP_HOME = path.join(os.tmpdir(), `app-home-docker-${process.pid}`);
const sourceEnv = { ...process.env, HOME: APP_HOME, AIDER_TEST_SECRET: SECRET, OPENAI_API_KEY: SECRET };
const exec = createExec({ sourceEnv });

describeWith(
  ["podman", "docker"],
  "container sandbox through a Docker socket (the docker client, Podman's Docker-compatible API)",
  () => {
    let dir: string;
    let socket: string;
    let service: ChildProcess;
    let serviceLog = "";
    let engine: ContainerEngine;
    let root: string;
    let checkout: string;
    const sessions: ContainerSession[] = [];
    const docker = (...args: string[]) =>
      spawnSync("docker", ["--host", `unix://${socket}`, ...args], { encoding: "utf8", env: baseEnv(process.env) });
    // The app's containers, as the docker client lists them by the app's label.
    const containersNamed = (name: string) =>
      docker(
        "ps",
        "--all",
        "--filter",
        `label=${CONTAINER_LABEL}`,
        "--filter",
        `name=^${name}$`,
        "--format",
        "{{.Names}}",
      ).stdout.trim();
    const open = (cacheKey = `docker/${process.pid}`, image = TEST_IMAGE, perExec = false) => {
      const s = createContainerSession(
        exec,
        { image, imageSource: "the test", checkout, cacheKey },
        { engine, network: false, ...(perExec ? {} : { clientEnv: baseEnv(sourceEnv) }) },
      );
      sessions.push(s);
      return s;
    };
    const sh = (s: ContainerSession, command: string, extra: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
      s.run({
        command,
        shell: true,
        cwd: checkout,
        timeoutMs: extra.timeoutMs ?? 60_000,
        ...(extra.signal ? { signal: extra.signal } : {}),
      });

    beforeAll(async () => {
      ensureTestImage();
      dir = await mkdtemp(path.join(os.tmpdir(), "aider-bot-docker-sock-"));
      socket = path.join(dir, "docker.sock");
      // The runtime and cgroup manager this kind of host needs (runc, cgroupfs: see docs/architecture.md and the README's sandbox section) apply to the service's containers too.
      service = spawn(
        "podman",
        ["--runtime", "runc", "--cgroup-manager", "cgroupfs", "system", "service", "--time=0", `unix://${socket}`],
        {
          stdio: ["ignore", "ignore", "pipe"],
          detached: true,
        },
      );
      service
        .stderr!.setEncoding("utf8")
        .on("data", (chunk: string) => (serviceLog = (serviceLog + chunk).slice(-4000)));
      await waitUntil(
        () => existsSync(socket) && docker("version", "--format", "{{.Server.Version}}").status === 0,
        () => `podman system service on ${socket} did not answer: ${serviceLog}`,
      );
      // A bare path: the engine makes it `unix://…` for the client.
      engine = {
        kind: "docker",
        socket,
        ulimits: ["nofile=1024:1024", "nproc=4096:4096"],
        memory: "256m",
        cpus: "1",
        pids: 128,
      };
      root = await mkdtemp(path.join(process.cwd(), ".ctr-docker-test-"));
      checkout = path.join(root, "work", "job-1", "checkout");
      await mkdir(path.join(checkout, ".git"), { recursive: true });
      await writeFile(path.join(checkout, ".git", "config"), "[core]\n\tbare = false\n");
      await writeFile(path.join(checkout, "app.py"), "print('hello from the checkout')\n");
      await writeFile(path.join(root, "work", "secret.txt"), SECRET);
    });
    afterAll(async () => {
      await Promise.all(sessions.map((s) => s.close()));
      if (socket)
        docker("volume", "rm", "--force", volumeOf(`docker/${process.pid}`), volumeOf(`docker-sweep/${process.pid}`));
      if (service?.pid !== undefined && service.exitCode === null) {
        const gone = new Promise((resolve) => service.once("exit", resolve));
        process.kill(-service.pid, "SIGTERM");
        await gone;
      }
      if (root) await rm(root, { recursive: true, force: true });
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it("the test image built with the Podman CLI is the one the docker client sees through the socket", () => {
      const viaDocker = docker("image", "inspect", "--format", "{{.Id}}", TEST_IMAGE);
      expect(viaDocker.status).toBe(0);
      const viaPodman = spawnSync(
        "podman",
        ["--runtime", "runc", "image", "inspect", "--format", "{{.Id}}", TEST_IMAGE],
        { encoding: "utf8" },
      );
      expect(viaDocker.stdout.trim().replace(/^sha256:/, "")).toBe(viaPodman.stdout.trim());
    });

    it("the engine probe answers through the socket, and names the problem for a socket nobody serves", async () => {
      expect(await containerEngineProblem(exec, engine)).toBeNull();
      const problem = await containerEngineProblem(exec, { ...engine, socket: path.join(dir, "nobody.sock") });
      expect(problem).toMatch(/^docker does not work on this host \(.*nobody\.sock/);
    });

    it("runs the command in the repository's image: its marker and its `python` are there", async () => {
      const s = open();
      const r = await sh(s, `cat ${IMAGE_MARKER.path} && python --version && python app.py`);
      expect(r.spawnError).toBeUndefined();
      expect(r.exitCode).toBe(0);
      expect(r.output).toContain(IMAGE_MARKER.content);
      expect(r.output).toMatch(/Python 3\.11/);
      expect(r.output).toContain("hello from the checkout");
      expect(containersNamed(s.name)).toBe(s.name);
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
      expect(env).not.toMatch(/AIDER_TEST_SECRET|OPENAI_API_KEY|DOCKER_HOST/);
      expect(env).toContain("PIP_CACHE_DIR=/aider-cache/pip");
      expect(r.output.split("--- net")[1]!.trim().split(/\s+/)).toEqual(["lo"]);
      const inspect = JSON.parse(docker("inspect", s.name).stdout)[0] as {
        HostConfig: { Memory: number; PidsLimit: number; NanoCpus: number; CapDrop: string[]; ReadonlyRootfs: boolean };
      };
      expect(inspect.HostConfig.Memory).toBe(256 * 1024 * 1024);
      expect(inspect.HostConfig.PidsLimit).toBe(128);
      expect(inspect.HostConfig.NanoCpus).toBe(1_000_000_000);
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
      const started = path.join(checkout, "cancel-started");
      const running = sh(s, "touch cancel-started && sleep 300", { signal: cancel.signal });
      // Abort once the command runs inside (Podman's Docker API answers `docker top` with an EOF: the command says so itself).
      await waitUntil(() => existsSync(started), "the command in the container did not start");
      cancel.abort();
      const r = await running;
      expect(r.exitCode).toBeNull();
      expect(r.spawnError).toBe("the command was cancelled");
      expect(containersNamed(s.name)).toBe("");
      expect((await sh(s, "true")).exitCode).toBe(0);
      await s.close();
      expect(containersNamed(s.name)).toBe("");
      expect((await sh(s, "true")).spawnError).toMatch(/already removed/);
    });

    it("without the runner session (one docker exec per command): the same image, output and exit code, and a timeout removes the container", async () => {
      const s = open(undefined, TEST_IMAGE, true);
      const r = await sh(s, `cat ${IMAGE_MARKER.path}; exit 3`);
      expect(r.output).toContain(IMAGE_MARKER.content);
      expect(r.exitCode).toBe(3);
      expect((await sh(s, "sleep 300", { timeoutMs: 1_000 })).timedOut).toBe(true);
      expect(containersNamed(s.name)).toBe("");
    });

    it("a container removed behind the session's back: the per-exec command says the container stopped, the next one starts a fresh container", async () => {
      const s = open(undefined, TEST_IMAGE, true);
      expect((await sh(s, "true")).exitCode).toBe(0);
      expect(docker("rm", "--force", s.name).status).toBe(0);
      const r = await sh(s, "true");
      expect(r.exitCode).toBeNull();
      expect(r.spawnError).toMatch(/the job's container stopped \(.*no such container.*\)/i);
      expect((await sh(s, "echo fresh")).output).toContain("fresh");
    });

    it("an image that cannot be pulled: the check's result says what failed and what to do", async () => {
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

    it("the start-up sweep finds the app's containers by label through the docker client, and removes only a gone process's", async () => {
      const s = createContainerSession(
        exec,
        { image: TEST_IMAGE, imageSource: "the test", checkout, cacheKey: `docker-sweep/${process.pid}` },
        { engine, network: false },
      );
      sessions.push(s);
      expect((await s.run({ command: "true", shell: true, cwd: checkout })).exitCode).toBe(0);
      expect(await sweepContainers(exec, engine, () => true)).toEqual([]);
      expect(containersNamed(s.name)).toBe(s.name);
      expect(await sweepContainers(exec, engine, (pid) => pid !== process.pid)).toContain(s.name);
      expect(containersNamed(s.name)).toBe("");
    });
  },
);

function volumeOf(key: string): string {
  return cacheVolumeName(key, createHash("sha256").update(key).digest("hex"));
}
