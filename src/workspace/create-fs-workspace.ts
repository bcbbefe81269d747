import { randomBytes } from "node:crypto";
import { chmod, lstat, mkdir, realpath, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { DEFAULT_PROTECTED_PATHS } from "../edits/path-policy.js";
import type { FailureReason, FileChanges, FileSnapshot } from "../edits/types.js";
import type { Exec } from "../exec/types.js";
import { listRepoFiles } from "./list-repo-files.js";
import { decodeUtf8KeepingBom } from "./bom.js";
import { createConfinedReader, type ConfinedReader } from "./confined-reader.js";
import { listGitFiles, type GitListing } from "./git-listing.js";
import { listTree } from "./git-tree-listing.js";
import { readBlobs } from "./read-blobs.js";
import { watchPending, type PendingCheckout } from "./pending-checkout.js";
import { resolveInside } from "./resolve-inside.js";
import type { Workspace } from "./types.js";
import { UnsafePathError } from "./unsafe-path-error.js";

export interface FsWorkspaceOptions {
  /** Globs writes may not touch (default `.github/workflows/**`). Reads of them are allowed, for context. */
  protectedPaths?: readonly string[];
  /** Files larger than this are not edited as text (default 1 MB). */
  maxFileBytes?: number;
  /**
   * The checkout's files are still being written: writes wait for them, reads of the tree's regular files come from
   * git's blobs meanwhile where nothing can make a written file differ (see `readFromTree`; others wait), and the
   * first listing comes from the commit's tree (see `listTree`), dropped if another checkout replaces this one.
   */
  pending?: PendingCheckout;
}

type Problem = { reason: FailureReason; message: string };

/**
 * The checkout on disk. Reads go through the confined reader (see `createConfinedReader`) and refuse unsafe paths,
 * binary, non-UTF-8 and oversized files (into `problems`), returning content raw (CRLF kept). Writes and deletes
 * judge the path they really land on (see `resolveInside`: a link like `wf -> .github/workflows` does not get
 * around the protected paths), create folders, keep file modes, write through symlinks to files inside, and are
 * atomic (temp file in the same folder + rename).
 */
export function createFsWorkspace(root: string, exec: Exec, options: FsWorkspaceOptions = {}): Workspace {
  const protectedPaths = options.protectedPaths ?? DEFAULT_PROTECTED_PATHS;
  const maxBytes = options.maxFileBytes ?? 1_000_000;
  const reader = createConfinedReader(root, { maxBytes });
  // One `git ls-files` serves the file list, the index's ids and the modified files until something may have
  // changed the checkout (our writes, a repository command): the coder lists files at the start and the map asks
  // again each round, and each listing costs a process.
  let listing: Promise<GitListing | null> | null = null;
  let first: Promise<GitListing | null> | null = null;
  const { pending } = options;
  const written = watchPending(pending);
  // Until the files are written, the tree's listing (a fresh checkout's own, see listTree); if it fails, git's
  // listing of the written checkout.
  const list = (): Promise<GitListing | null> =>
    pending && !written()
      ? listTree(exec, root, pending.commit).then(
          async (got) => got ?? (await pending.written, listGitFiles(exec, root)),
        )
      : listGitFiles(exec, root);
  const current = () => {
    listing ??= list();
    first ??= listing;
    return listing;
  };
  const invalidate = () => {
    listing = null;
  };
  // Another checkout replaced the one whose tree was listed: nothing of that listing holds for it.
  void pending?.written.then(
    (same) => {
      if (!same) listing = first = null;
    },
    () => undefined,
  );
  const ready = async () => {
    if (pending) await pending.written;
  };
  const blobsOf = blobCache(exec, root);
  return {
    root,
    async read(paths) {
      // The next round's files need not wait for the checkout's others: they come from git while it is written.
      const early =
        paths.length && pending && !written()
          ? await readFromTree(blobsOf, await current(), [...new Set(paths)], maxBytes, written)
          : null;
      if (early) return early;
      if (paths.length) await ready();
      const files = new Map<string, string>();
      const problems = new Map<string, Problem>();
      for (const rel of new Set(paths)) {
        const result = readOne(reader, rel, maxBytes);
        if (result === null) continue;
        if (typeof result === "string") files.set(rel, result);
        else problems.set(rel, result);
      }
      return { files, problems } satisfies FileSnapshot;
    },
    async write(changes: FileChanges) {
      await ready();
      // Check every path before writing any, so a refused change does not leave half an edit behind.
      const targets: { rel: string; target: string; content: string | null }[] = [];
      for (const [rel, content] of changes) {
        const where = await resolveInside(root, rel, protectedPaths, content === null ? "delete" : "write");
        if (!where.ok) throw new UnsafePathError(rel, where.message);
        targets.push({ rel, target: where.target, content });
      }
      try {
        for (const t of targets) {
          if (t.content === null) await rm(t.target, { force: true });
          else await writeAtomically(t.rel, t.target, t.content);
        }
      } finally {
        // Also after a partial write: files may have appeared or gone, so the next list asks git again.
        invalidate();
      }
    },
    async listFiles() {
      const got = await current();
      // Not a git checkout: a walk that skips `.git` and applies .gitignore files.
      return got ? [...got.files] : (await ready(), listRepoFiles(root));
    },
    async indexContentIds() {
      const got = await current();
      return got ? { indexIds: got.indexIds, modified: Promise.resolve(got.modified) } : null;
    },
    async trackedFiles() {
      return (await (first ?? current()))?.tracked ?? null;
    },
    async firstIndexIds() {
      return (await (first ?? current()))?.indexIds ?? null;
    },
    async firstExecutables() {
      return (await (first ?? current()))?.executables ?? null;
    },
    invalidate,
  };
}

/**
 * While a checkout's files are written: these paths' contents from git's blobs (`blobsOf`), when each is
 * a regular file of the commit's tree (`listing`, the tree's) and the tree has no `.gitattributes` (no filter or
 * line-ending rule of the repository's own can make a written file differ from its blob). Null otherwise, or once the
 * files are written meanwhile (they are read then, as they are, and a checkout that failed fails the read).
 */
async function readFromTree(
  blobsOf: (ids: readonly string[]) => Promise<ReadonlyMap<string, Buffer>>,
  listing: GitListing | null,
  paths: readonly string[],
  maxBytes: number,
  written: () => boolean,
): Promise<FileSnapshot | null> {
  if (!listing || written() || listing.files.some(isAttributesFile)) return null;
  // A hostile tree may list what git refuses to write (a `.GIT` folder): such a path waits for the confined reader.
  if (paths.some((rel) => rel.split("/").some((part) => part.toLowerCase() === ".git"))) return null;
  const ids = paths.map((rel) => listing.indexIds.get(rel));
  if (ids.some((id) => id === undefined)) return null;
  const blobs = await blobsOf(ids as string[]);
  if (written() || ids.some((id) => !blobs.has(id!))) return null;
  const files = new Map<string, string>();
  const problems = new Map<string, Problem>();
  paths.forEach((rel, i) => {
    const result = judgeBytes(rel, blobs.get(ids[i]!)!, maxBytes);
    if (typeof result === "string") files.set(rel, result);
    else problems.set(rel, result);
  });
  return { files, problems };
}

/**
 * Blobs read while the files are written, by id: the round that asked for a file, its request and its edit read the
 * same file, with one git process among them.
 */
function blobCache(exec: Exec, root: string): (ids: readonly string[]) => Promise<ReadonlyMap<string, Buffer>> {
  const blobs = new Map<string, Buffer>();
  return async (ids) => {
    const missing = ids.filter((id) => !blobs.has(id));
    if (missing.length) for (const [id, bytes] of await readBlobs(exec, root, missing)) blobs.set(id, bytes);
    return blobs;
  };
}

/** Whether a path is a `.gitattributes` file (at the root or in a folder). */
function isAttributesFile(rel: string): boolean {
  return rel === ".gitattributes" || rel.endsWith("/.gitattributes");
}

/** Content, a problem, or null when the file does not exist. */
function readOne(reader: ConfinedReader, rel: string, maxBytes: number): string | Problem | null {
  // Reading a protected file for context is fine; the edit engine and `write` refuse changing it.
  const got = reader.read(rel);
  if (!got.ok) {
    switch (got.reason) {
      case "missing":
        return null;
      case "too-large":
        return {
          reason: "unreadable",
          message: `\`${rel}\` is larger than ${maxBytes} bytes; it is not edited as text.`,
        };
      case "not-file":
      case "unreadable":
        return { reason: "unreadable", message: got.message };
      default:
        return { reason: "unsafe-path", message: got.message };
    }
  }
  return judgeBytes(rel, got.content, maxBytes);
}

/** A file's bytes as text, or why they are not edited as text (too large, binary, not UTF-8). */
function judgeBytes(rel: string, bytes: Buffer, maxBytes: number): string | Problem {
  if (bytes.length > maxBytes)
    return { reason: "unreadable", message: `\`${rel}\` is larger than ${maxBytes} bytes; it is not edited as text.` };
  if (bytes.includes(0))
    return { reason: "unreadable", message: `\`${rel}\` is a binary file; it cannot be edited as text.` };
  try {
    return decodeUtf8KeepingBom(bytes);
  } catch {
    // The decoder only throws on invalid UTF-8 (fatal mode): the message below says so in the user's terms.
    return { reason: "unreadable", message: `\`${rel}\` is not valid UTF-8; it cannot be edited as text.` };
  }
}

/**
 * Temp file next to the target, then rename: a reader never sees half a file, and a crash leaves the old one. The
 * target's folder is checked again once created, so a folder swapped for a link since `resolveInside` is noticed.
 */
async function writeAtomically(rel: string, target: string, content: string): Promise<void> {
  // No file there yet is the usual case for a new file: nothing to keep the mode of.
  const existing = await lstat(target).catch(() => null);
  const dir = path.dirname(target);
  await mkdir(dir, { recursive: true });
  if ((await realpath(dir)) !== dir)
    throw new UnsafePathError(
      rel,
      `Refused to edit \`${rel}\`: its folder changed into a symbolic link while it was written.`,
    );
  const tmp = path.join(dir, `.${path.basename(target)}.aider-bot-${randomBytes(6).toString("hex")}.tmp`);
  try {
    await writeFile(tmp, content, { encoding: "utf8", flag: "wx" });
    if (existing?.isFile()) await chmod(tmp, existing.mode & 0o7777);
    await rename(tmp, target);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}
