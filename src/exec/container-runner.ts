import { spawn } from "node:child_process";
import { constants } from "node:fs";
import { open, rm } from "node:fs/promises";
import path from "node:path";
import type { ExecResult } from "./types.js";

/** Where the runner's control folder (requests' scripts and outputs) is mounted inside the container. */
export const CONTROL_MOUNT = "/aider-ctl";

/**
 * The shell loop inside the job's container: for each request id read from its stdin, run that request's script
 * with its output in a file, and answer `id exit-code`. Only POSIX shell builtins, so every image with /bin/sh runs it.
 */
export const RUNNER_SCRIPT = `while read -r id; do /bin/sh ${CONTROL_MOUNT}/$id.sh > ${CONTROL_MOUNT}/$id.out 2>&1 < /dev/null; echo "$id $?"; done`;

/**
 * One long-lived `podman exec -i` session in the job's container that runs every command of the job: a command is a
 * script in the control folder and a line on the session's stdin, so it starts in milliseconds (a `podman exec` per
 * command costs a runtime start, ~0.4–1 s). A command that times out or is cancelled is stopped by removing the
 * container (the caller's job); the session then ends and every pending command resolves.
 */
export interface ContainerRunner {
  run(script: string, limits: { maxOutputBytes: number }): Promise<Omit<ExecResult, "durationMs" | "timedOut">>;
  /** The session ended (container removed, engine failure). */
  readonly ended: boolean;
  stop(): void;
}

/**
 * Start the session: `argv` is the engine's `exec --interactive NAME /bin/sh -c RUNNER_SCRIPT`, `env` the engine
 * client's allow-listed environment, `controlDir` the host folder mounted at {@link CONTROL_MOUNT}.
 */
export function startContainerRunner(
  program: string,
  argv: readonly string[],
  env: Record<string, string>,
  controlDir: string,
): ContainerRunner {
  const child = spawn(program, [...argv], { env, stdio: ["pipe", "pipe", "pipe"], detached: true });
  const pending = new Map<string, (code: number | null, why?: string) => void>();
  let ended = false;
  let said = "";
  let buffer = "";
  let next = 0;
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const [id, code] = buffer.slice(0, nl).trim().split(" ");
      buffer = buffer.slice(nl + 1);
      pending.get(id ?? "")?.(Number(code));
    }
  });
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => (said = (said + chunk).slice(-2000)));
  child.stdin.on("error", () => undefined);
  const end = (why: string) => {
    if (ended) return;
    ended = true;
    for (const resolve of pending.values()) resolve(null, why);
    pending.clear();
  };
  child.once("error", (error) => end(`the container's command runner could not start: ${error.message}`));
  child.once("close", (code) =>
    end(
      `the container's command runner ended (exit ${code}${said.trim() ? `: ${said.trim().split("\n").slice(-2).join(" ")}` : ""})`,
    ),
  );

  return {
    get ended() {
      return ended;
    },
    async run(script, limits) {
      if (ended)
        return {
          exitCode: null,
          output: "",
          stdout: "",
          stderr: "",
          spawnError: "the container's command runner has ended",
        };
      const id = `r${++next}`;
      const scriptFile = path.join(controlDir, `${id}.sh`);
      const outFile = path.join(controlDir, `${id}.out`);
      const written = await writeNew(scriptFile, script);
      if (written !== null)
        return {
          exitCode: null,
          output: "",
          stdout: "",
          stderr: "",
          spawnError: `the command was not run: the container's control folder is not as the app left it (${written})`,
        };
      const answer = new Promise<{ code: number | null; why?: string }>((resolve) =>
        pending.set(id, (code, why) => resolve({ code, ...(why ? { why } : {}) })),
      );
      child.stdin.write(`${id}\n`);
      const { code, why } = await answer;
      pending.delete(id);
      const output = await readCapped(outFile, limits.maxOutputBytes);
      await Promise.all([rm(scriptFile, { force: true }), rm(outFile, { force: true })]);
      return { exitCode: code, output, stdout: output, stderr: "", ...(why ? { spawnError: why } : {}) };
    },
    stop() {
      child.stdin.end();
      if (child.pid !== undefined && child.exitCode === null) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
    },
  };
}

/*
 * The control folder is writable from inside the container, so what a command leaves there is hostile: a command can
 * replace its output file (or plant the next request's script file) with a symbolic link to a host file, such as the
 * app's key or /proc/<pid>/environ. The app never follows a link there: a script is created fresh (O_EXCL, which
 * refuses any existing name, links included), and an output is opened without following a final link and read only
 * when it is a regular file (O_NONBLOCK: a FIFO must not hang the app). Only the folder's direct children are used,
 * and the folder itself is the host's (the container's mount point), so no other part of a path is the container's.
 */
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
const READ_NO_LINK = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Write a request's script as a new file; null when written, else why not. */
async function writeNew(file: string, content: string): Promise<string | null> {
  await rm(file, { force: true });
  const handle = await open(file, CREATE_NEW, 0o644).catch((error: NodeJS.ErrnoException) => error.code ?? "error");
  if (typeof handle === "string") return `${path.basename(file)}: ${handle}`;
  try {
    await handle.writeFile(content);
    return null;
  } finally {
    await handle.close();
  }
}

/** A command's output file, head and tail kept within `maxBytes` (never read whole when it is larger). */
async function readCapped(file: string, maxBytes: number): Promise<string> {
  const handle = await open(file, READ_NO_LINK).catch((error: NodeJS.ErrnoException) => error.code ?? "error");
  if (handle === "ENOENT") return "";
  if (typeof handle === "string")
    return `[the command's output file was replaced by something the app does not read (${handle}): output not shown]`;
  try {
    const stat = await handle.stat();
    if (!stat.isFile())
      return "[the command's output file was replaced by something that is not a file: output not shown]";
    const { size } = stat;
    if (size <= maxBytes) return (await handle.readFile()).toString("utf8");
    const half = Math.floor(maxBytes / 2);
    const head = Buffer.alloc(half);
    const tail = Buffer.alloc(half);
    await handle.read(head, 0, half, 0);
    await handle.read(tail, 0, half, size - half);
    return `${head.toString("utf8")}\n… [${size - 2 * half} bytes cut] …\n${tail.toString("utf8")}`;
  } finally {
    await handle.close();
  }
}
