import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import pino from "pino";
import { containerTargetFor } from "../../src/app/container-target.js";
import { createCheckExec } from "../../src/app/create-check-exec.js";
import { readEnv } from "../../src/config/env.js";
import { createExec } from "../../src/exec/create-exec.js";
import type { RunRequest } from "../../src/run/run-request.js";
import { describeWith } from "../helpers/needs.js";
import { ensureTestImage, IMAGE_MARKER, TEST_IMAGE } from "../helpers/podman-test-image.js";

const exec = createExec({ sourceEnv: process.env });
const log = pino({ level: "silent" });
const ours = () =>
  spawnSync("podman", ["ps", "-a", "--filter", `label=io.aider-bot.pid=${process.pid}`, "--format", "{{.Names}}"], {
    encoding: "utf8",
  }).stdout.trim();

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
