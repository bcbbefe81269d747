import { closeSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { rm } from "node:fs/promises";
import { hostname } from "node:os";

/** A crashed holder's lock is taken over after this long even when its process cannot be checked (another host). */
const LOCK_MAX_AGE_MS = 15 * 60_000;

/**
 * An exclusive lock file (`O_EXCL`) naming its holder. A lock whose holder died is taken over: on this host when its
 * process is gone, from another host (a shared cache volume) after {@link LOCK_MAX_AGE_MS}. Not a library's lock:
 * the maintained one (proper-lockfile) installs process-wide signal and exit hooks, which would change how the
 * app's processes end on SIGTERM.
 */
export function takeLock(file: string): { release(): Promise<void> } | null {
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number | null = null;
    try {
      fd = openSync(file, "wx", 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    if (fd !== null) {
      try {
        writeSync(fd, `${hostname()} ${process.pid} ${Date.now()}\n`);
      } finally {
        closeSync(fd);
      }
      return { release: () => rm(file, { force: true }) };
    }
    if (attempt > 0 || !isStale(file)) return null;
    // Two processes taking the same stale lock over at once can both get in. Nothing breaks then (see
    // cloneFromMirror): the lock saves a wasted fetch, it does not guard the checkout's correctness.
    try {
      renameSync(file, `${file}.stale-${process.pid}`);
    } catch {
      return null;
    }
    rmSync(`${file}.stale-${process.pid}`, { force: true });
  }
  return null;
}

function isStale(file: string): boolean {
  let text: string;
  let mtimeMs: number;
  try {
    text = readFileSync(file, "utf8");
    mtimeMs = statSync(file).mtimeMs;
  } catch {
    return false; // released meanwhile: the next attempt takes it
  }
  const [host, pid] = text.split(" ");
  if (Date.now() - mtimeMs > LOCK_MAX_AGE_MS) return true;
  if (host !== hostname() || !pid || !/^\d+$/.test(pid)) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
