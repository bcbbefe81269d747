import type { Exec } from "../exec/types.js";

/**
 * The git blob id of every tracked regular file whose work-tree content git vouches for: `git ls-files -s` gives
 * the index's ids, and `git diff-files` names the files that differ from the index (edited, deleted, or only
 * touched: git does not refresh its stat cache here, so those are named too and cost a read, never a wrong id).
 * The repo map keys its tag cache by these ids, so a fresh clone of a repository it has seen reads no file at all.
 * Submodules, symlinks and conflicted entries are left out. Any git failure gives an empty map (the caller then
 * reads and hashes the files itself).
 */
export async function gitContentIds(exec: Exec, root: string): Promise<Map<string, string>> {
  const git = (args: string[]) =>
    exec.run({ command: "git", args, cwd: root, env: { GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0" }, maxOutputBytes: 400_000_000 });
  const [staged, changed] = await Promise.all([git(["ls-files", "-s", "-z"]), git(["diff-files", "--name-only", "-z"])]);
  if (staged.exitCode !== 0 || changed.exitCode !== 0) return new Map();
  return cleanBlobIds(staged.stdout, changed.stdout);
}

/** Pure part of {@link gitContentIds}: `ls-files -s -z` entries at stage 0 with a regular-file mode, minus `changed`. */
export function cleanBlobIds(lsFilesStage: string, diffFilesNames: string): Map<string, string> {
  const changed = new Set(diffFilesNames.split("\0"));
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
