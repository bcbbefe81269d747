import { randomBytes } from "node:crypto";
import { chmod, lstat, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { DEFAULT_PROTECTED_PATHS } from "../edits/path-policy.js";
import type { FailureReason, FileChanges, FileSnapshot } from "../edits/types.js";
import type { Exec } from "../exec/types.js";
import { listRepoFiles } from "../repomap/list-repo-files.js";
import { decodeUtf8KeepingBom } from "./bom.js";
import { gitIndexContentIds } from "./git-content-ids.js";
import { resolveInside } from "./resolve-inside.js";
import type { Workspace } from "./types.js";
import { UnsafePathError } from "./unsafe-path-error.js";

export interface FsWorkspaceOptions {
  /** Globs writes may not touch (default `.github/workflows/**`). Reads of them are allowed, for context. */
  protectedPaths?: readonly string[];
  /** Files larger than this are not edited as text (default 1 MB). */
  maxFileBytes?: number;
}

type Problem = { reason: FailureReason; message: string };

/**
 * The checkout on disk. Reads refuse unsafe paths, binary, non-UTF-8 and oversized files (into `problems`) and
 * return content raw (CRLF kept); writes re-check safety, create folders, keep file modes, write through
 * symlinks that stay inside, and are atomic (temp file in the same folder + rename).
 */
export function createFsWorkspace(root: string, exec: Exec, options: FsWorkspaceOptions = {}): Workspace {
  const protectedPaths = options.protectedPaths ?? DEFAULT_PROTECTED_PATHS;
  const maxBytes = options.maxFileBytes ?? 1_000_000;
  return {
    root,
    async read(paths) {
      const files = new Map<string, string>();
      const problems = new Map<string, Problem>();
      for (const rel of new Set(paths)) {
        const result = await readOne(root, rel, maxBytes);
        if (result === null) continue;
        if (typeof result === "string") files.set(rel, result);
        else problems.set(rel, result);
      }
      return { files, problems } satisfies FileSnapshot;
    },
    async write(changes: FileChanges) {
      // Check every path before writing any, so a refused change does not leave half an edit behind.
      const targets: { rel: string; abs: string; real: string; content: string | null }[] = [];
      for (const [rel, content] of changes) {
        const where = await resolveInside(root, rel, protectedPaths);
        if (!where.ok) throw new UnsafePathError(rel, where.message);
        targets.push({ rel, abs: where.abs, real: where.real, content });
      }
      for (const t of targets) {
        if (t.content === null) await rm(t.abs, { force: true });
        else await writeAtomically(t.real, t.content);
      }
    },
    async listFiles() {
      const r = await exec.run({
        command: "git",
        args: ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd: root,
        env: { GIT_TERMINAL_PROMPT: "0" },
        maxOutputBytes: 200_000_000,
      });
      if (r.exitCode === 0) return [...new Set(r.stdout.split("\0").filter(Boolean))].sort();
      // Not a git checkout: a walk that skips `.git` and applies .gitignore files.
      return listRepoFiles(root);
    },
    indexContentIds: () => gitIndexContentIds(exec, root),
  };
}

/** Content, a problem, or null when the file does not exist. */
async function readOne(root: string, rel: string, maxBytes: number): Promise<string | Problem | null> {
  // Reading a protected file for context is fine; the edit engine and `write` refuse changing it.
  const where = await resolveInside(root, rel, []);
  if (!where.ok) return { reason: "unsafe-path", message: where.message };
  const info = await stat(where.abs).catch(() => null);
  if (!info) return null;
  if (!info.isFile()) return { reason: "unreadable", message: `\`${rel}\` is not a regular file.` };
  if (info.size > maxBytes) return { reason: "unreadable", message: `\`${rel}\` is larger than ${maxBytes} bytes; it is not edited as text.` };
  const bytes = await readFile(where.abs);
  if (bytes.includes(0)) return { reason: "unreadable", message: `\`${rel}\` is a binary file; it cannot be edited as text.` };
  try {
    return decodeUtf8KeepingBom(bytes);
  } catch {
    return { reason: "unreadable", message: `\`${rel}\` is not valid UTF-8; it cannot be edited as text.` };
  }
}

/** Temp file next to the target, then rename: a reader never sees half a file, and a crash leaves the old one. */
async function writeAtomically(target: string, content: string): Promise<void> {
  const existing = await lstat(target).catch(() => null);
  await mkdir(path.dirname(target), { recursive: true });
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.aider-bot-${randomBytes(6).toString("hex")}.tmp`);
  try {
    await writeFile(tmp, content, { encoding: "utf8", flag: "wx" });
    if (existing?.isFile()) await chmod(tmp, existing.mode & 0o7777);
    await rename(tmp, target);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}
