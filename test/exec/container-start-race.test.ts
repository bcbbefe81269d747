import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { ContainerEngine } from "../../src/exec/container-engine.js";
import { createContainerSession, type ContainerSession } from "../../src/exec/container-sandbox.js";
import { createExec } from "../../src/exec/create-exec.js";

/**
 * The job's container and its base run's container start together and both create the repository's cache volume;
 * Podman refuses the second creation ("volume already exists") although the volume is there by then. A stand-in
 * `podman` answers each `run` from a list the test writes (`race`: Podman 4's words for that refusal; `broken`: any
 * other failure; `ok`), so the race happens on every run of the test, not one in a hundred. It logs every sub-command
 * it is given. Runs everywhere (no engine needed).
 */
const FAKE_PODMAN = `#!/bin/sh
S=__STATE__
echo "$1" >> "$S/log"
case "$1" in
  image) exit 0 ;;
  run)
    name=""; volume=""
    while [ $# -gt 0 ]; do
      case "$1" in
        --name) name=$2; shift ;;
        --volume) case "$2" in *:/aider-cache:rw) volume=\${2%:/aider-cache:rw} ;; esac; shift ;;
      esac
      shift
    done
    answer=$(head -n 1 "$S/answers" 2>/dev/null); sed -i 1d "$S/answers" 2>/dev/null
    case "$answer" in
      race)
        echo "Error: creating named volume \\"$volume\\": adding volume to state: name $volume is in use: volume already exists" >&2
        exit 125 ;;
      broken)
        echo "Error: runc: container create failed: unable to start container process: exec: \\"/bin/sh\\": no such file or directory" >&2
        exit 127 ;;
    esac
    echo "$name" > "$S/running"; exit 0 ;;
  exec)
    [ -f "$S/running" ] || { echo "Error: no such container" >&2; exit 125; }
    name=$(cat "$S/running")
    while [ $# -gt 0 ] && [ "$1" != "$name" ]; do shift; done
    shift
    exec "$@" ;;
  rm) rm -f "$S/running"; exit 0 ;;
esac
exit 0
`;

describe("a container whose start lost the race to create its repository's cache volume", () => {
  let root: string;
  let state: string;
  let checkout: string;
  let exec: ReturnType<typeof createExec>;
  const sessions: ContainerSession[] = [];
  const engine: ContainerEngine = { kind: "podman", ulimits: [], memory: "256m", cpus: "1", pids: 128 };

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "ctr-race-"));
    state = path.join(root, "engine-state");
    const bin = path.join(root, "bin");
    checkout = path.join(root, "job", "checkout");
    await Promise.all([mkdir(state), mkdir(bin), mkdir(checkout, { recursive: true })]);
    await writeFile(path.join(bin, "podman"), FAKE_PODMAN.replace("__STATE__", state));
    await chmod(path.join(bin, "podman"), 0o755);
    exec = createExec({ sourceEnv: { ...process.env, PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}` } });
  });
  afterAll(async () => {
    await Promise.all(sessions.map((s) => s.close()));
    await rm(root, { recursive: true, force: true });
  });

  /** A session whose engine answers its `run`s with `answers`, in order (then `ok`), its log emptied. */
  const open = async (answers: string[]) => {
    await writeFile(path.join(state, "answers"), answers.map((a) => `${a}\n`).join(""));
    await rm(path.join(state, "log"), { force: true });
    // One engine exec per command (no runner session): the stand-in runs it on the host.
    const s = createContainerSession(
      exec,
      { image: "stand-in", imageSource: "the test", checkout, cacheKey: "acme/widgets" },
      { engine, network: false },
    );
    sessions.push(s);
    return s;
  };
  /** The engine's sub-commands so far, in order (the image check left out: it is made once per process). */
  const calls = async () =>
    (await readFile(path.join(state, "log"), "utf8").catch(() => "")).split("\n").filter((c) => c && c !== "image");

  it("is started once more, mounting the volume the other made, and its commands run", async () => {
    const s = await open(["race", "ok"]);
    expect(await s.start()).toBeNull();
    // The half-made container is removed before the second start (its name is taken until then).
    expect(await calls()).toEqual(["run", "rm", "run"]);
    const r = await s.run({ command: "echo", args: ["in the container"], cwd: checkout, timeoutMs: 30_000 });
    expect({ exitCode: r.exitCode, output: r.output.trim() }).toEqual({ exitCode: 0, output: "in the container" });
  });

  it("any other start failure is reported at once, with the engine's words, not started again", async () => {
    const s = await open(["broken", "ok"]);
    const problem = await s.start();
    expect(problem).toMatch(/^a container could not be started from `stand-in` \(from the test\): .*no such file/);
    expect(await calls()).toEqual(["run", "rm"]);
  });

  it("a second refusal of the same kind ends in an error that names the cache volume and what to do", async () => {
    const s = await open(["race", "race", "ok"]);
    const problem = await s.start();
    // Started twice, no more: the third answer (`ok`) is never asked for.
    expect(await calls()).toEqual(["run", "rm", "run", "rm"]);
    expect(problem).toMatch(/the cache volume `aider-bot-cache-acme-widgets-[0-9a-f]{10}`/);
    expect(problem).toMatch(/volume already exists/);
    expect(problem).toMatch(/podman volume rm aider-bot-cache-acme-widgets-[0-9a-f]{10}/);
    // Not the advice for a broken image: the image is not what failed.
    expect(problem).not.toMatch(/The image needs \/bin\/sh/);
  });
});
