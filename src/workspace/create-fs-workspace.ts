import { randomBytes } from "node:crypto";
import { chmod, lstat, mkdir, readFile, rename, rm, stat, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { DEFAULT_PROTECTED_PATHS } from "../edits/path-policy.js";
import type { FailureReason, FileChanges, FileSnapshot } from "../edits/types.js";
import type { Exec } from "../exec/types.js";
import type { Workspace } from "./types.js";
import { resolveInside } from "./resolve-inside.js";
import { UnsafePathError } from "./unsafe-path-error.js";

export interface FsWorkspaceOptions {
  protectedPaths?: readonly string[];
  /** Files larger than this are not edited as text (default 1 MB). */
  maxFileBytes?: number;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The checkout on disk. Reads refuse unsafe paths, binary, non-UTF-8 and oversized files (into `problems`);
 * writes re-check safety, create folders, keep file modes and are atomic (temp file in the same folder + rename).
 */
export function createFsWorkspace(root: string, exec: Exec, options: FsWorkspaceOptions = {}): Workspace {
  const protectedPaths = options.protectedPaths ?? DEFAULT_PROTECTED_PATHS;
  const maxBytes = options.maxFileBytes ?? 1_000_000;
  return {
    root,
    async read(paths) {
      const files = new Map<string, string>();
      const problems = new Map<string, { reason: FailureReason; message: string }>();
      for (const rel of new Set(paths)) {
        // Reading a protected file for context is fine; the edit engine refuses edits to it.
        const where = await resolveInside(root, rel, []);
        if (!where.ok) {
          problems.set(rel, { reason: "unsafe-path", message: where.reason });
          continue;
        }
        const info = await stat(where.abs).catch(() => null);
        if (!info) continue;
        if (!info.isFile()) {
          problems.set(rel, { reason: "unreadable", message: `\`${rel}\` is not a regular file.` });
          continue;
        }
        if (info.size > maxBytes) {
          problems.set(rel, { reason: "unreadable", message: `\`${rel}\` is larger than ${maxBytes} bytes; it is not edited as text.` });
          continue;
        }
        const bytes = await readFile(where.abs);
        if (bytes.includes(0)) {
          problems.set(rel, { reason: "unreadable", message: `\`${rel}\` is a binary file; it cannot be edited as text.` });
          continue;
        }
        try {
          files.set(rel, utf8.decode(bytes));
        } catch {
          problems.set(rel, { reason: "unreadable", message: `\`${rel}\` is not valid UTF-8; it cannot be edited as text.` });
        }
      }
      return { files, problems } satisfies FileSnapshot;
    },
    async write(changes: FileChanges) {
      for (const [rel, content] of changes) {
        const where = await resolveInside(root, rel, protectedPaths);
        if (!where.ok) throw new UnsafePathError(rel, where.reason);
        const existing = await lstat(where.abs).catch(() => null);
        if (content === null) {
          if (existing) await unlink(where.abs);
          continue;
        }
        await mkdir(path.dirname(where.abs), { recursive: true });
        const tmp = path.join(path.dirname(where.abs), `.${path.basename(where.abs)}.aider-bot-${randomBytes(6).toString("hex")}.tmp`);
        try {
          await writeFile(tmp, content, "utf8");
          if (existing?.isFile()) await chmod(tmp, existing.mode & 0o7777);
          await rename(tmp, where.abs);
        } catch (error) {
          await rm(tmp, { force: true });
          throw error;
        }
      }
    },
    async listFiles() {
      const r = await exec.run({ command: "git", args: ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd: root });
      if (r.exitCode === 0) return [...new Set(r.stdout.split("\0").filter(Boolean))].sort();
      const { listRepoFiles } = await import("../repomap/list-repo-files.js");
      return listRepoFiles(root);
    },
  };
}
