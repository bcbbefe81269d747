import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { baseEnv } from "../../src/exec/base-env.js";
import type { ContainerEngine } from "../../src/exec/container-engine.js";
import { createContainerSession, type ContainerSession } from "../../src/exec/container-sandbox.js";
import { createExec } from "../../src/exec/create-exec.js";
import { waitUntil } from "../helpers/wait-until.js";

/**
 * A stopped command (cancelled, or past its time) is answered only once its container is gone. Real engines end the
 * exec session as soon as `rm` starts and finish removing a moment later; the caller must not see the container
 * listed after the command's result. A stand-in `docker` makes that order certain: its `rm` kills the session first
 * and removes the container one second later. It runs everywhere (no engine needed); the real engines' behaviour is
 * covered by container-sandbox and container-docker-socket.
 */
const FAKE_DOCKER = `#!/bin/sh
S=__STATE__
case "$1" in
  image) exit 0 ;;
  run)
    name=""; ctl=""
    while [ $# -gt 0 ]; do
      case "$1" in
        --name) name=$2; shift ;;
        --volume) case "$2" in *:/aider-ctl:rw) ctl=\${2%:/aider-ctl:rw} ;; esac; shift ;;
      esac
      shift
    done
    echo "$name" > "$S/running"; echo "$ctl" > "$S/ctl"; exit 0 ;;
  exec)
    [ -f "$S/running" ] || { echo "Error: no such container" >&2; exit 125; }
    for last; do :; done
    echo $$ > "$S/session.pid"
    exec /bin/sh -c "$(printf '%s' "$last" | sed "s#/aider-ctl#$(cat "$S/ctl")#g")" ;;
  rm)
    [ -f "$S/session.pid" ] && kill -KILL -"$(cat "$S/session.pid")" 2>/dev/null
    sleep 1
    rm -f "$S/running" "$S/session.pid"; exit 0 ;;
esac
exit 0
`;

describe("a stopped command in a container session", () => {
  let root: string;
  let state: string;
  let checkout: string;
  let sourceEnv: NodeJS.ProcessEnv;
  const sessions: ContainerSession[] = [];
  const engine: ContainerEngine = { kind: "docker", ulimits: [], memory: "256m", cpus: "1", pids: 128 };

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "ctr-stop-"));
    state = path.join(root, "engine-state");
    const bin = path.join(root, "bin");
    checkout = path.join(root, "job", "checkout");
    await Promise.all([mkdir(state), mkdir(bin), mkdir(checkout, { recursive: true })]);
    await writeFile(path.join(bin, "docker"), FAKE_DOCKER.replace("__STATE__", state));
    await chmod(path.join(bin, "docker"), 0o755);
    sourceEnv = { ...process.env, PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}` };
  });
  afterAll(async () => {
    await Promise.all(sessions.map((s) => s.close()));
    await rm(root, { recursive: true, force: true });
  });

  const open = () => {
    const s = createContainerSession(
      createExec({ sourceEnv }),
      { image: "stand-in", imageSource: "the test", checkout, cacheKey: "acme/widgets" },
      { engine, network: false, clientEnv: baseEnv(sourceEnv) },
    );
    sessions.push(s);
    return s;
  };
  const sh = (s: ContainerSession, command: string, extra: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
    s.run({ command, shell: true, cwd: checkout, timeoutMs: extra.timeoutMs ?? 60_000, ...extra });
  const listed = () => existsSync(path.join(state, "running"));

  it("a cancel answers after the container is removed, and the next command starts a fresh one", async () => {
    const s = open();
    expect((await sh(s, "echo ready")).output).toContain("ready");
    expect(listed()).toBe(true);
    const cancel = new AbortController();
    const running = sh(s, "touch cancel-started && sleep 300", { signal: cancel.signal });
    await waitUntil(() => existsSync(path.join(checkout, "cancel-started")), "the command did not start");
    cancel.abort();
    const r = await running;
    expect(r.spawnError).toBe("the command was cancelled");
    expect(r.exitCode).toBeNull();
    expect(listed()).toBe(false);
    expect((await sh(s, "echo again")).output).toContain("again");
    expect(listed()).toBe(true);
  });

  it("a timeout answers after the container is removed", async () => {
    const s = open();
    const r = await sh(s, "sleep 300", { timeoutMs: 500 });
    expect(r.timedOut).toBe(true);
    expect(listed()).toBe(false);
  });
});
