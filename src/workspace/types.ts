import type { FileChanges, FileSnapshot } from "../edits/types.js";
import type { IndexContentIds } from "./git-content-ids.js";

/** A checkout the coder works in. `src/workspace/` implements it over the real filesystem and git. */
export interface Workspace {
  /** Absolute path of the checkout root. */
  readonly root: string;
  /** Read these repo-relative paths (missing files are simply absent). Unsafe/binary/non-UTF-8 paths land in `problems`. */
  read(paths: readonly string[]): Promise<FileSnapshot>;
  /** Write changes atomically (temp file + rename); `null` deletes. Re-checks path safety; throws `UnsafePathError`. */
  write(changes: FileChanges): Promise<void>;
  /** Tracked + untracked-not-ignored files, repo-relative, sorted. */
  listFiles(): Promise<string[]>;
  /** Git's blob ids of the tracked files, and later which of them the work tree changed (see `gitIndexContentIds`); null outside git. */
  indexContentIds?(): Promise<IndexContentIds | null>;
  /**
   * The files git tracked at the workspace's first listing; null outside git. Kept when the list is forgotten: only
   * git commands change the index (see `prepareCommit` in git-prepared-commit).
   */
  trackedFiles?(): Promise<ReadonlySet<string> | null>;
  /** The index's blob ids at that first listing (see `trackedFiles`); null outside git. */
  firstIndexIds?(): Promise<ReadonlyMap<string, string> | null>;
  /** The tracked regular files that were executable (mode 100755) at that first listing; null outside git. */
  firstExecutables?(): Promise<ReadonlySet<string> | null>;
  /**
   * Forget what the workspace knows of the checkout (its file list): something else, e.g. a repository's test
   * script, may have created, deleted or staged files.
   */
  invalidate?(): void;
}

export interface CommitRequest {
  /** Only these paths are staged and committed (added, modified or deleted). */
  paths: readonly string[];
  subject: string;
  body?: string;
  /** Trailers appended after a blank line, e.g. ["Co-authored-by: Ann <ann@example.com>"]. */
  trailers?: readonly string[];
  author?: { name: string; email: string };
}

export interface CommitResult {
  sha: string;
  subject: string;
  stats: { path: string; added: number; removed: number }[];
}
