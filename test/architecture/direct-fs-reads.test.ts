import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** Functions of node:fs that read a file's content or a folder's listing. */
const READS = new Set([
  "readFile",
  "readFileSync",
  "readdir",
  "readdirSync",
  "open",
  "openSync",
  "opendir",
  "opendirSync",
  "createReadStream",
  "readlink",
  "readlinkSync",
]);

/**
 * Every module of src/ that reads the filesystem itself, and what it reads. Checkout content goes through the
 * confined reader (src/workspace/confined-reader.ts) or git; the others read the app's own files, /proc, or a path
 * the operator gave. A new module reading files must be added here with its reason, which a reviewer can judge.
 */
const ALLOWED: Record<string, string> = {
  "src/workspace/confined-reader.ts": "the confined reader itself: every checkout read for the model and the map",
  "src/workspace/local-repo-reader.ts": "lists checkout folders after resolving them inside the root (resolve-inside)",
  "src/workspace/list-repo-files.ts": "checkout folder listings for the map's file list: names, never content",
  "src/workspace/git-clean-dir.ts": "a checkout's `.git/shallow`, opened without following links or blocking on a FIFO",
  "src/workspace/git-mirror.ts": "the app's git mirrors (FETCH_HEAD, packs), never a checkout",
  "src/workspace/mirror-lock.ts": "the lock file of an app's git mirror (its holder's host and pid), never a checkout",
  "src/workspace/git-commit-ahead.ts":
    "the app's own clone's `.git` (HEAD, refs, config) and the git configuration of the HOME git runs with, matched for hooks and attributes; the commit's files go through the confined reader",
  "src/workspace/work-tree-files.ts":
    "a job checkout's top-level names, to remove all but `.git`: names, never content",
  "src/repomap/tag-cache.ts": "the app's tag cache file",
  "src/run/prepare/baseline-run.ts": "the app's base-result cache file, opened without following links",
  "src/checks/tool-shelf.ts": "the app's tools shelf (a failed install's record), opened without following links",
  "src/exec/kill-tree.ts": "/proc: a process's children",
  "src/exec/raise-priority.ts": "/proc: a process's threads",
  "src/exec/container-runner.ts": "a container command's output file, opened without following links and capped",
  "src/jobs/claim-store-dir.ts": "the job queue's own claim files",
  "src/app/transcript-store.ts": "the app's transcript folder",
  "src/app/sweep-job-dirs.ts": "the app's job folders (to remove stale ones)",
  "src/egress/egress-session.ts": "the egress proxy's own session file",
  "src/llm/read-model-settings.ts": "the operator's model settings file (a path from the environment)",
  "src/llm/count-tokens.ts": "the tokenizer table shipped with the app",
  "src/spend/budget-file.ts": "the operator's spend budget file",
  "src/config/private-key.ts": "the App's private key file (a path from the environment)",
  "src/action/action-command.ts": "the Action's event file (GITHUB_EVENT_PATH)",
  "src/cli/apply-command.ts": "the reply file the CLI user names",
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : [],
  );
}

/** The read functions a module imports from node:fs or node:fs/promises. */
function fsReads(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*"node:fs(?:\/promises)?"/g))
    for (const name of m[1]!.split(",").map((n) => n.trim().split(/\s+as\s+/)[0]!))
      if (READS.has(name)) found.push(name);
  if (
    /import\s+\*\s+as\s+\w+\s+from\s+"node:fs(?:\/promises)?"|import\s+\w+\s+from\s+"node:fs(?:\/promises)?"/.test(text)
  )
    found.push("(the whole module)");
  return found;
}

describe("direct filesystem reads in src/", () => {
  const readers = sources("src")
    .map((file) => ({ file, reads: fsReads(readFileSync(file, "utf8")) }))
    .filter((r) => r.reads.length > 0);

  it("only the modules listed, each with what it reads (checkout content goes through the confined reader)", () => {
    expect(readers.map((r) => r.file).filter((f) => !(f in ALLOWED))).toEqual([]);
  });

  it("the list names no module that no longer reads files", () => {
    const now = new Set(readers.map((r) => r.file));
    expect(Object.keys(ALLOWED).filter((f) => !now.has(f))).toEqual([]);
  });
});
