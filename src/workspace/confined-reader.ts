import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, realpathSync } from "node:fs";
import path from "node:path";

/** Files larger than this are not read unless the caller asks for another cap. */
export const DEFAULT_MAX_READ_BYTES = 1_000_000;

/** Why a read was refused; `missing` is the one callers usually treat as "absent" rather than a problem. */
export type ConfinedRefusal =
  "missing" | "unsafe-path" | "outside" | "git-dir" | "not-file" | "too-large" | "unreadable";

export type ConfinedRead =
  /** `resolved`: the repo-relative path of the file read (differs from the one asked for through a symlink inside). */
  | { ok: true; content: Buffer; resolved: string }
  /** `message` names the requested path only (never a link's target), fit for the model and public comments. */
  | { ok: false; reason: ConfinedRefusal; message: string };

export interface ConfinedReaderOptions {
  /** Refuse files larger than this many bytes (default {@link DEFAULT_MAX_READ_BYTES}). */
  maxBytes?: number;
}

/** Reads checkout files on behalf of the model: see {@link createConfinedReader}. */
export interface ConfinedReader {
  /** The checkout root as given. */
  readonly root: string;
  /** Read one repo-relative path (forward slashes). Never throws. */
  read(rel: string): ConfinedRead;
}

// O_NONBLOCK: opening a FIFO must not hang the app (it is refused by fstat right after).
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * The one way the app reads checkout content for the model (chat and mentioned files, check-output locations, the
 * repo map). A repository is hostile: its committed symlinks and the files its scripts leave behind may point at
 * `/proc/self/environ`, the App's key or another checkout. So every read resolves the real path (every component),
 * refuses anything that lands outside the checkout or inside `.git`, opens the resolved path without following a
 * final symlink, and refuses what is not a regular file (FIFOs, devices, folders) or is larger than the cap.
 * On Linux the file actually opened is confirmed through `/proc/self/fd`, so swapping a folder for a symlink
 * between the check and the open does not get around it.
 *
 * Synchronous on purpose: the repo map reads thousands of small files, and each call blocks for microseconds only
 * (see `load-file-tags.ts`).
 *
 * @example createConfinedReader("/work/repo").read("src/a.ts") // { ok: true, content: <Buffer …>, resolved: "src/a.ts" }
 */
export function createConfinedReader(root: string, options: ConfinedReaderOptions = {}): ConfinedReader {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_READ_BYTES;
  let realRoot: string | null = null;
  return {
    root,
    read(rel) {
      const refuse = (reason: ConfinedRefusal, why: string): ConfinedRead => ({
        ok: false,
        reason,
        message: `\`${rel}\` ${why}`,
      });
      const bad = requestProblem(rel);
      if (bad) return refuse("unsafe-path", bad);
      try {
        realRoot ??= realpathSync.native(root);
      } catch {
        return refuse("missing", "was not read: the checkout folder does not exist.");
      }
      let real: string;
      try {
        real = realpathSync.native(path.join(realRoot, rel));
      } catch (error) {
        const code = errorCode(error);
        if (code === "ENOENT" || code === "ENOTDIR") {
          // Missing, but a link on the way may still lead outside: say so rather than tell what exists there.
          const via = existingAncestor(realRoot, path.join(realRoot, rel));
          if (via === null)
            return refuse("outside", "resolves outside the repository through a symbolic link; it is not read.");
          if (hasGitPart(via))
            return refuse("git-dir", "resolves into `.git/` through a symbolic link; it is not read.");
          return refuse("missing", "does not exist.");
        }
        if (code === "ELOOP") return refuse("unsafe-path", "is a loop of symbolic links; it is not read.");
        return refuse("unreadable", `could not be read (${code ?? "error"}).`);
      }
      const resolved = insideRelative(realRoot, real);
      if (resolved === null)
        return refuse("outside", "resolves outside the repository through a symbolic link; it is not read.");
      if (hasGitPart(resolved))
        return refuse("git-dir", "resolves into `.git/` through a symbolic link; it is not read.");
      let fd: number;
      try {
        fd = openSync(real, OPEN_FLAGS);
      } catch (error) {
        const code = errorCode(error);
        if (code === "ENOENT") return refuse("missing", "does not exist.");
        if (code === "ELOOP")
          return refuse("unsafe-path", "changed into a symbolic link while it was read; it is not read.");
        return refuse("unreadable", `could not be read (${code ?? "error"}).`);
      }
      try {
        const info = fstatSync(fd);
        if (!info.isFile()) return refuse("not-file", "is not a regular file; it is not read.");
        if (!opened(fd, real, info)) return refuse("unsafe-path", "changed while it was read; it is not read.");
        if (info.size > maxBytes) return refuse("too-large", `is larger than ${maxBytes} bytes; it is not read.`);
        // One byte more than the size: a file that grew since fstat is noticed rather than cut short.
        const want = info.size + 1;
        const buf = Buffer.allocUnsafe(want);
        let got = 0;
        for (let n = -1; n !== 0 && got < want; got += n) n = readSync(fd, buf, got, want - got, got);
        if (got > maxBytes) return refuse("too-large", `is larger than ${maxBytes} bytes; it is not read.`);
        if (got === want) return refuse("unreadable", "changed while it was read; try again.");
        return { ok: true, content: buf.subarray(0, got), resolved };
      } catch (error) {
        return refuse("unreadable", `could not be read (${errorCode(error) ?? "error"}).`);
      } finally {
        closeSync(fd);
      }
    },
  };
}

/** Why a requested path is refused before touching the disk, or null. */
function requestProblem(rel: string): string | null {
  if (rel === "" || rel.includes("\0")) return "is not a valid path; it is not read.";
  if (path.isAbsolute(rel) || /^[a-zA-Z]:/.test(rel))
    return "is an absolute path; only paths inside the repository are read.";
  const parts = rel.split(/[\\/]/);
  if (parts.includes("..")) return "leaves the repository (`..`); it is not read.";
  if (parts.some((p) => p.toLowerCase() === ".git")) return "is inside `.git/`; it is not read.";
  return null;
}

/** Repo-relative real path of the nearest existing ancestor of `abs` (null when it is outside `realRoot`). */
function existingAncestor(realRoot: string, abs: string): string | null {
  for (let probe = path.dirname(abs); ; probe = path.dirname(probe)) {
    try {
      return insideRelative(realRoot, realpathSync.native(probe));
    } catch {
      // Missing too (or a dangling link): try its parent; the root itself exists.
      if (path.dirname(probe) === probe) return null;
    }
  }
}

/** `p` relative to `root` with forward slashes when inside it (`""` for root itself), else null. */
export function insideRelative(root: string, p: string): string | null {
  const r = path.relative(root, p);
  if (r === ".." || r.startsWith(`..${path.sep}`) || path.isAbsolute(r)) return null;
  return r.split(path.sep).join("/");
}

/** Case-insensitive: on macOS and Windows `.GIT/config` is `.git/config`. */
export function hasGitPart(rel: string): boolean {
  return rel.split("/").some((p) => p.toLowerCase() === ".git");
}

/**
 * Whether `fd` is the file at `real`. Linux names the opened file in /proc/self/fd, which settles it; elsewhere the
 * path must still lead (without a symlink at its end) to the same inode — a narrower check, as the race it closes
 * needs a process running beside the app, which the sandbox does not leave behind.
 */
function opened(fd: number, real: string, info: { dev: number; ino: number }): boolean {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`) === real;
  } catch {
    // No /proc (macOS, or a container without it): fall through to the inode check.
  }
  try {
    const now = lstatSync(real);
    return now.isFile() && now.dev === info.dev && now.ino === info.ino;
  } catch {
    // The path no longer leads anywhere: it cannot be the file we opened, so the read is refused.
    return false;
  }
}

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error
    ? String((error as { code: unknown }).code)
    : undefined;
}
