import os from "node:os";
import { engineProgram, globalArgs, listArgs, removeArgs, type ContainerEngine } from "./container-engine.js";
import { CONTAINER_HOST_LABEL, CONTAINER_LABEL } from "./container-sandbox.js";
import type { Exec } from "./types.js";

/**
 * Remove the job containers whose job process is gone (a crash, a `kill -9`: nothing ran their `close()`): those
 * labelled with this machine's host name and the pid of a process that no longer runs. Returns their names.
 */
export async function sweepContainers(
  exec: Exec,
  engine: ContainerEngine,
  alive: (pid: number) => boolean,
): Promise<string[]> {
  const program = engineProgram(engine);
  const base = globalArgs(engine);
  const r = await exec.run({
    command: program,
    args: [...base, ...listArgs(engine, { pid: CONTAINER_LABEL, host: CONTAINER_HOST_LABEL })],
    cwd: "/",
    timeoutMs: 30_000,
  });
  if (r.exitCode !== 0) return [];
  const gone = r.stdout
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .flatMap(([name, pid, host]) =>
      name && host === os.hostname() && /^\d+$/.test(pid ?? "") && !alive(Number(pid)) ? [name] : [],
    );
  for (const name of gone)
    await exec.run({ command: program, args: [...base, ...removeArgs(engine, name)], cwd: "/", timeoutMs: 60_000 });
  return gone;
}
