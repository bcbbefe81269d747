import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { isUsableTagCache } from "./tag-cache.js";

export interface WarmRepoMapCacheResult {
  /** Tag caches found and usable (current version). */
  caches: number;
  /** Bytes read into the OS page cache. */
  bytes: number;
}

/** `<cacheRoot>/repomap/<owner>/<repo>/tags.bin`: how deep caches sit below the root. */
const DEPTH = 3;
const CHUNK = 4 * 1024 * 1024;

/**
 * For the app's start: read every repository's tag cache under `<cacheRoot>/repomap` (where the job runner keeps
 * them) once, so the first job after a restart finds its map's index and tags in memory rather than paying a cold
 * disk inside the job. Outdated or foreign files are skipped (a build replaces them). Never throws: a cache is an
 * aid, and warming it must not stop the app. Call it without awaiting, e.g. `void warmRepoMapCache({ cacheRoot })`.
 */
export async function warmRepoMapCache(options: { cacheRoot: string; signal?: AbortSignal }): Promise<WarmRepoMapCacheResult> {
  const result: WarmRepoMapCacheResult = { caches: 0, bytes: 0 };
  for (const dir of await cacheDirs(path.join(options.cacheRoot, "repomap"), DEPTH)) {
    if (options.signal?.aborted) break;
    if (!isUsableTagCache(dir)) continue;
    result.caches++;
    result.bytes += readThrough(path.join(dir, "tags.bin"));
    // Let the event loop answer webhooks between caches.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return result;
}

/** Folders (at most `depth` below `root`, links not followed) that hold a `tags.bin`. */
async function cacheDirs(root: string, depth: number): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string, left: number): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (e.isFile() && e.name === "tags.bin") found.push(dir);
      else if (e.isDirectory() && left > 0) await walk(path.join(dir, e.name), left - 1);
    }
  };
  await walk(root, depth);
  return found.sort();
}

/** Read the file and drop the bytes: the point is the page cache. Returns bytes read. */
function readThrough(file: string): number {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return 0; // gone since it was listed (a build replaced it): nothing to warm
  }
  try {
    if (!fstatSync(fd).isFile()) return 0;
    const buf = Buffer.allocUnsafe(CHUNK);
    let total = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, total);
      if (n === 0) return total;
      total += n;
    }
  } finally {
    closeSync(fd);
  }
}
