import { createHash } from "node:crypto";
import { GitError } from "./git-errors.js";
import type { GitRun } from "./git-runner.js";

/** One path a commit changes (`git diff-tree --raw`): modes are git's (100644, 100755, 120000, 160000, 000000). */
export interface CommitChangeEntry {
  /** A added, M modified, D deleted, T type changed. */
  status: string;
  srcMode: string;
  dstMode: string;
  dstOid: string;
  path: string;
}

/** A local commit read for GitHub's API: its parent, message, changes and the new contents. */
export interface CommitChanges {
  parent: string;
  message: string;
  entries: CommitChangeEntry[];
  /** Total bytes of the added or modified regular files. */
  bytes: number;
  /**
   * Contents of the added or modified regular files, by path. A file whose exact bytes could not be read back (not
   * UTF-8 text: git's output reaches us as text) is missing; none are read when `bytes` is over the limit.
   */
  contents: Map<string, Buffer>;
}

/**
 * The commit `sha` as its changes against its first parent, through the git runner: one `log` for the parent and
 * the message, `diff-tree` for the paths and modes, `cat-file --batch-check` for the sizes, `cat-file blob` for each
 * file. Every content read is checked
 * against its blob id, so what is sent is byte for byte what was committed.
 */
export async function readCommitChanges(
  run: GitRun,
  dir: string,
  sha: string,
  maxBytes: number,
): Promise<CommitChanges> {
  // Parents, a NUL, then the message: one process where `rev-parse` and `log` took two.
  const head = (await run(dir, ["log", "-1", "--format=%P%x00%B", sha])).stdout;
  const nul = head.indexOf("\0");
  const parent = (nul < 0 ? "" : head.slice(0, nul)).trim().split(" ")[0] ?? "";
  if (!/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(parent))
    throw new GitError(`Commit ${sha} has no parent commit to compare it with.`, head.slice(0, 200));
  const message = head.slice(nul + 1);
  const raw = (await run(dir, ["diff-tree", "-r", "-z", "--no-renames", "--no-commit-id", "--raw", parent, sha]))
    .stdout;
  const entries = parseRawDiff(raw);
  const files = entries.filter((e) => e.status !== "D" && isRegular(e.dstMode));
  const sizes = new Map<string, number>();
  if (files.length) {
    const check = await run(dir, ["cat-file", "--batch-check"], {
      input: files.map((f) => f.dstOid).join("\n") + "\n",
    });
    for (const line of check.stdout.split("\n")) {
      const [oid, , size] = line.split(" ");
      if (oid && size) sizes.set(oid, Number(size));
    }
  }
  const bytes = files.reduce((n, f) => n + (sizes.get(f.dstOid) ?? 0), 0);
  const contents = new Map<string, Buffer>();
  if (bytes <= maxBytes) {
    for (const f of files) {
      const text = (await run(dir, ["cat-file", "blob", f.dstOid])).stdout;
      const buf = Buffer.from(text, "utf8");
      if (blobId(buf, f.dstOid.length) === f.dstOid) contents.set(f.path, buf);
    }
  }
  return { parent, message, entries, bytes, contents };
}

/** `git diff-tree -r -z --raw` output as entries (pure). */
export function parseRawDiff(raw: string): CommitChangeEntry[] {
  const parts = raw.split("\0");
  const out: CommitChangeEntry[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const meta = parts[i]!;
    const m = /^:(\d{6}) (\d{6}) [0-9a-f]+ ([0-9a-f]+) ([A-Z])\d*$/.exec(meta);
    if (!m) continue;
    out.push({ srcMode: m[1]!, dstMode: m[2]!, dstOid: m[3]!, status: m[4]!, path: parts[i + 1]! });
  }
  return out;
}

function isRegular(mode: string): boolean {
  return mode === "100644" || mode === "100755";
}

/** Git's id of a blob with these bytes (SHA-1, or SHA-256 for a 64-hex repository). */
function blobId(buf: Buffer, hexLength: number): string {
  return createHash(hexLength === 64 ? "sha256" : "sha1")
    .update(`blob ${buf.length}\0`)
    .update(buf)
    .digest("hex");
}
