import { constants } from "node:fs";
import { lstat, mkdir, mkdtemp, open, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { GitError } from "./git-errors.js";
import type { GitRun, GitRunOptions, GitRunResult } from "./git-runner.js";

/** Config the repository cannot have written: no system or global file, no hooks, no replace refs. */
const CLEAN_ENV = {
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_NO_REPLACE_OBJECTS: "1",
} as const;

export interface CleanGitDir {
  /** A git command in the private git dir (objects are the checkout's); `-c core.hooksPath=/dev/null` always. */
  run(args: readonly string[], options?: GitRunOptions): Promise<GitRunResult>;
  /** Copy back the shallow boundary a fetch may have moved, then delete the private dir. */
  close(): Promise<void>;
}

/**
 * A fresh private git directory, outside the checkout, for commands that carry the installation token (push,
 * fetch, ls-remote). The repository's scripts ran in the checkout and may have written its `.git/config`
 * (`include.path`, `url.*.insteadOf`, `http.proxy`, `credential.helper`, hooks…): none of that exists here. Its
 * config is the three lines written here a moment ago, system and global config are off, hooks point at /dev/null, and
 * callers name the remote by URL, never by a remote name. Objects are read from and written to the checkout's
 * object store (`GIT_OBJECT_DIRECTORY`), so a fetch lands where a later rebase in the checkout finds it; the
 * checkout's shallow boundary is copied in, so a shallow clone can push.
 */
export async function openCleanGitDir(run: GitRun, checkoutDir: string): Promise<CleanGitDir> {
  const gitDir = path.join(path.resolve(checkoutDir), ".git");
  const info = await lstat(gitDir).catch(() => null);
  // A `.git` file (worktree, gitlink) or symlink could point anywhere: only a plain directory is trusted for objects.
  if (!info?.isDirectory())
    throw new GitError(`Refusing to send credentials: ${gitDir} is not a plain git directory.`, "");
  const objects = path.join(gitDir, "objects");
  const dir = await mkdtemp(path.join(os.tmpdir(), "aider-bot-git-"));
  try {
    await writeBareSkeleton(dir);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const shallowIn = await readShallow(path.join(gitDir, "shallow"));
  if (shallowIn !== null) await writeFile(path.join(dir, "shallow"), shallowIn);
  const env = { ...CLEAN_ENV, GIT_DIR: dir, GIT_OBJECT_DIRECTORY: objects };
  return {
    run: (args, options = {}) =>
      run(dir, ["-c", "core.hooksPath=/dev/null", ...args], { ...options, env: { ...options.env, ...env } }),
    async close() {
      try {
        const shallowOut = await readShallow(path.join(dir, "shallow"));
        // Written beside and renamed over: a symlink a repository script left at `.git/shallow` is replaced, never
        // written through.
        // A fetch that reached the roots leaves no shallow list: the checkout's is then removed too, or git would
        // still take its old boundary commits for roots (and find no merge-base below them).
        if (shallowOut === null && shallowIn !== null) await rm(path.join(gitDir, "shallow"), { force: true });
        if (shallowOut !== null && shallowOut !== shallowIn) {
          const tmp = path.join(gitDir, `shallow.aider-bot-${process.pid}`);
          await writeFile(tmp, shallowOut, { flag: "w" });
          await rename(tmp, path.join(gitDir, "shallow"));
        }
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * What `git init --bare --template=` writes, written directly (one git process less per push or fetch): HEAD, a
 * config that says bare and nothing else, and empty `refs/` and `objects/` (for a clean git dir, objects really live
 * in the checkout's store, through `GIT_OBJECT_DIRECTORY`; a repository's mirror keeps its own).
 */
export async function writeBareSkeleton(dir: string): Promise<void> {
  await mkdir(path.join(dir, "refs", "heads"), { recursive: true });
  await mkdir(path.join(dir, "refs", "tags"));
  await mkdir(path.join(dir, "objects"));
  await writeFile(path.join(dir, "HEAD"), "ref: refs/heads/main\n");
  await writeFile(
    path.join(dir, "config"),
    "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n",
  );
}

/**
 * A git `shallow` file: a regular file (never followed through a link, which a repository script may have planted in
 * `.git`), small, and nothing but commit ids — anything else is treated as absent, so its content can never reach a
 * git error message or anywhere else.
 */
async function readShallow(file: string): Promise<string | null> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
  if (!handle) return null; // absent (not shallow) or a link: either way there is no boundary to copy
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > 1_000_000) return null;
    const text = await handle.readFile("utf8");
    return /^(?:[0-9a-f]{40}(?:[0-9a-f]{24})?\n)*$/.test(text) ? text : null;
  } finally {
    await handle.close();
  }
}
