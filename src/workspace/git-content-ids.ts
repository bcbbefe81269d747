import type { Exec } from "../exec/types.js";

/** Git's blob ids in two steps: the index's at once, and later which files the work tree changed. */
export interface IndexContentIds {
  /** The index's blob id of every tracked regular file (stage 0), whether or not its work-tree copy changed. */
  indexIds: ReadonlyMap<string, string>;
  /** The files whose work-tree content differs from `indexIds` (`git ls-files -m`); null when git could not say. */
  modified: Promise<ReadonlySet<string> | null>;
}

/**
 * The git blob id of every tracked regular file whose work-tree content git vouches for: `git ls-files -s` gives
 * the index's ids, and `git ls-files -m` names the files that differ from the index (edited or deleted). For a file
 * whose stat data changed but whose size did not (touched, or edited within the index's timestamp), git compares
 * the content, so a touched file keeps its id and an edit is never missed. (`git diff-files` answers the same but
 * costs several times more on a fresh clone.)
 * The repo map keys its tag cache by these ids, so a fresh clone of a repository it has seen reads no file at all.
 * Submodules, symlinks and conflicted entries are left out. Any git failure gives an empty map (the caller then
 * reads and hashes the files itself).
 */
export async function gitContentIds(exec: Exec, root: string): Promise<Map<string, string>> {
  const staged = await gitIndexContentIds(exec, root);
  const modified = await staged?.modified;
  if (!staged || !modified) return new Map();
  return new Map([...staged.indexIds].filter(([rel]) => !modified.has(rel)));
}

/**
 * {@link gitContentIds} in two steps, for a caller that can start on the index's ids. In a fresh clone the second
 * step is the slow one: git re-reads every file written in the same second as its index ("racily clean").
 * Null when `git ls-files -s` fails (not a checkout).
 */
export async function gitIndexContentIds(exec: Exec, root: string): Promise<IndexContentIds | null> {
  const git = (args: string[]) =>
    exec.run({
      command: "git",
      args,
      cwd: root,
      env: { GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0" },
      maxOutputBytes: 400_000_000,
    });
  // Both at once, the work-tree check on one thread (by default git stats files on many threads, and would slow
  // the quick index listing that the caller waits for).
  const changed = git(["-c", "core.preloadIndex=false", "ls-files", "-m", "-z"]);
  const staged = await git(["ls-files", "-s", "-z"]);
  if (staged.exitCode !== 0) {
    await changed;
    return null;
  }
  const modified = changed.then((r) => (r.exitCode === 0 ? new Set(r.stdout.split("\0").filter(Boolean)) : null));
  return { indexIds: cleanBlobIds(staged.stdout, ""), modified };
}

/** Pure part of {@link gitContentIds}: `ls-files -s -z` entries at stage 0 with a regular-file mode, minus `changed` (`ls-files -m -z`). */
export function cleanBlobIds(lsFilesStage: string, modifiedNames: string): Map<string, string> {
  const changed = new Set(modifiedNames.split("\0"));
  const ids = new Map<string, string>();
  for (const entry of lsFilesStage.split("\0")) {
    // "<mode> <id> <stage>\t<path>"
    const tab = entry.indexOf("\t");
    if (tab < 0) continue;
    const [mode, id, stage] = entry.slice(0, tab).split(" ");
    const rel = entry.slice(tab + 1);
    if ((mode === "100644" || mode === "100755") && stage === "0" && id && !changed.has(rel)) ids.set(rel, id);
  }
  return ids;
}
