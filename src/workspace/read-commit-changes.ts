import { isUtf8 } from "node:buffer";
import { createHash } from "node:crypto";
import { createConfinedReader } from "./confined-reader.js";
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
 * The commit `sha` as its changes against its first parent: one `diff-tree` prints the parents, the message and the
 * changed paths with their modes and blob ids. The new files' bytes are read from the work tree of `dir` (the commit
 * was just made from it), and only those whose bytes there are not the committed blob (a clean filter, a file changed
 * since, not UTF-8) are asked of one `cat-file --batch`: an ordinary commit costs one git process, not two. Every
 * content read is checked against its blob id, so what is sent is byte for byte what was committed; a file whose
 * bytes do not check (not UTF-8 text: git's output reaches us as text) is left out, and the caller pushes with git.
 */
export async function readCommitChanges(
  run: GitRun,
  dir: string,
  sha: string,
  maxBytes: number,
): Promise<CommitChanges> {
  // `--always`: the header is printed even for a commit that changes nothing. A root commit has no parent to show.
  const out = (await run(dir, ["diff-tree", "-r", "-z", "--no-renames", "--raw", "--always", "--format=%P%x00%B", sha]))
    .stdout;
  const { parents, message, raw } = splitDiffTreeHeader(out);
  const parent = parents.split(" ")[0] ?? "";
  if (!/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(parent))
    throw new GitError(`Commit ${sha} has no parent commit to compare it with.`, out.slice(0, 200));
  const entries = parseRawDiff(raw);
  const files = entries.filter((e) => e.status !== "D" && isRegular(e.dstMode));
  const read = readFromWorkTree(dir, files, maxBytes);
  const rest = files.filter((f) => !read.has(f.dstOid));
  if (rest.length)
    for (const [oid, blob] of readBatch(
      (await run(dir, ["cat-file", "--batch"], { input: rest.map((f) => f.dstOid).join("\n") + "\n" })).stdout,
    ))
      read.set(oid, blob);
  // A blob git did not describe (the output was cut) counts as over the limit: the change then goes by git push.
  const bytes = files.reduce((n, f) => n + (read.get(f.dstOid)?.size ?? maxBytes + 1), 0);
  const contents = new Map<string, Buffer>();
  if (bytes <= maxBytes)
    for (const f of files) {
      const buf = read.get(f.dstOid)?.bytes;
      if (buf && blobId(buf, f.dstOid.length) === f.dstOid) contents.set(f.path, buf);
    }
  return { parent, message, entries, bytes, contents };
}

/**
 * The new files' bytes as the work tree has them, by blob id, for those whose bytes there are the committed blob and
 * UTF-8 text (the only blobs the `cat-file` path could give exactly, so the API is used for the same commits as
 * before). The work tree is the repository's and hostile (a script may have swapped a folder for a symlink since the
 * commit), so each file goes through the confined reader and counts only when it is the path itself, not a link's
 * target; anything refused is left to git. Nothing is kept once the files together are over `maxBytes` (git then
 * gives the exact sizes).
 */
function readFromWorkTree(
  dir: string,
  files: readonly CommitChangeEntry[],
  maxBytes: number,
): Map<string, { size: number; bytes: Buffer | null }> {
  const got = new Map<string, { size: number; bytes: Buffer | null }>();
  const reader = createConfinedReader(dir, { maxBytes });
  let total = 0;
  for (const f of files) {
    const r = reader.read(f.path);
    if (!r.ok || r.resolved !== f.path) continue;
    total += r.content.length;
    if (total > maxBytes) return new Map();
    if (isUtf8(r.content) && blobId(r.content, f.dstOid.length) === f.dstOid)
      got.set(f.dstOid, { size: r.content.length, bytes: r.content });
  }
  return got;
}

/** `diff-tree -z --format=%P%x00%B` output: the parents, a NUL, the message, a NUL, then the raw entries (pure). */
export function splitDiffTreeHeader(out: string): { parents: string; message: string; raw: string } {
  const first = out.indexOf("\0");
  const second = first < 0 ? -1 : out.indexOf("\0", first + 1);
  if (second < 0) return { parents: "", message: "", raw: "" };
  return {
    parents: out.slice(0, first).trim(),
    message: out.slice(first + 1, second),
    raw: out.slice(second + 1).replace(/^\n/, ""),
  };
}

/**
 * `git cat-file --batch` output as each blob's size and bytes (pure). Entries are `<oid> blob <size>\n<bytes>\n`. The
 * text is encoded back to bytes, which gives git's bytes exactly when every blob is UTF-8; a blob that is not shifts
 * the byte offsets after it, so each next entry is found by its header. Such a blob's bytes fail the caller's id check.
 */
export function readBatch(text: string): Map<string, { size: number; bytes: Buffer | null }> {
  const buf = Buffer.from(text, "utf8");
  const got = new Map<string, { size: number; bytes: Buffer | null }>();
  const header = /^([0-9a-f]{40}(?:[0-9a-f]{24})?) blob (\d+)$/;
  let at = 0;
  while (at < buf.length) {
    const nl = buf.indexOf(10, at);
    if (nl < 0) break;
    const m = header.exec(buf.subarray(at, nl).toString("latin1"));
    if (!m) {
      // Not a header: the previous blob was not UTF-8 (its decoded length differs). Resynchronise at the next one.
      const next = nextHeader(buf, at);
      if (next < 0) break;
      at = next;
      continue;
    }
    const size = Number(m[2]);
    const end = nl + 1 + size;
    got.set(m[1]!, { size, bytes: end <= buf.length ? Buffer.from(buf.subarray(nl + 1, end)) : null });
    at = end + 1;
  }
  return got;
}

/** Where the next `<oid> blob <size>` header line starts after `from`, or -1. */
function nextHeader(buf: Buffer, from: number): number {
  const re = /\n[0-9a-f]{40}(?:[0-9a-f]{24})? blob \d+\n/g;
  const text = buf.toString("latin1");
  re.lastIndex = from;
  const m = re.exec(text);
  return m ? m.index + 1 : -1;
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
export function blobId(buf: Buffer, hexLength: number): string {
  return createHash(hexLength === 64 ? "sha256" : "sha1")
    .update(`blob ${buf.length}\0`)
    .update(buf)
    .digest("hex");
}
