import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from "node:fs";
import { hostname } from "node:os";
import { join, resolve } from "node:path";

/** The file naming the process that owns an embedded job store (pid, host, when). */
export const OWNER_FILE = "owner.json";

/** A second live process asked for a store another one owns. */
export class StoreInUseError extends Error {
  constructor(dir: string, pid: number) {
    super(
      `The job store in ${dir} is in use by another running aider-bot process (pid ${pid}). Two apps sharing one store take each other's jobs: ` +
        `give each app its own AIDER_BOT_DATA_DIR, or set REDIS_URL to run several workers on one queue.`,
    );
    this.name = "StoreInUseError";
  }
}

interface Owner {
  pid: number;
  host: string;
  since: number;
}

/** This process's claims, counted: the same process may open one store more than once (and release it in turn). */
const held = new Map<string, number>();

/**
 * Claim `dir` for this process before its embedded store opens, so two apps started with one data directory never
 * share a queue. The claim is a file created exclusively (`wx`): of two processes starting together one wins. A file
 * left by a process that is gone (a crash, a kill -9, another host's container reusing the volume after a restart)
 * is taken over. Throws {@link StoreInUseError} when a live process on this host owns it.
 */
export function claimStoreDir(dir: string, isAlive: (pid: number) => boolean = pidAlive): { release(): void } {
  const key = resolve(dir);
  const file = join(key, OWNER_FILE);
  if (!held.has(key)) {
    mkdirSync(key, { recursive: true, mode: 0o700 });
    for (let attempt = 0; ; attempt++) {
      if (tryCreate(file)) break;
      const owner = readOwner(file);
      if (owner && owner.pid !== process.pid && owner.host === hostname() && isAlive(owner.pid))
        throw new StoreInUseError(key, owner.pid);
      // Ours from an earlier life of this pid, gone, unreadable or written on another host: take it over once.
      if (attempt > 0)
        throw new Error(
          `could not claim the job store in ${key}: ${file} keeps coming back; remove it if no aider-bot process uses this folder`,
        );
      rmSync(file, { force: true });
    }
  }
  held.set(key, (held.get(key) ?? 0) + 1);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      const left = (held.get(key) ?? 1) - 1;
      if (left > 0) return void held.set(key, left);
      held.delete(key);
      const owner = readOwner(file);
      if (owner?.pid === process.pid) rmSync(file, { force: true });
    },
  };
}

function tryCreate(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, "wx", 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    writeSync(fd, JSON.stringify({ pid: process.pid, host: hostname(), since: Date.now() } satisfies Owner));
  } finally {
    closeSync(fd);
  }
  return true;
}

function readOwner(file: string): Owner | null {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<Owner>;
    return typeof parsed.pid === "number" && typeof parsed.host === "string"
      ? { pid: parsed.pid, host: parsed.host, since: Number(parsed.since) || 0 }
      : null;
  } catch {
    return null;
  }
}

/** Signal 0 checks that a process exists without touching it; EPERM means it exists under another user. */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
