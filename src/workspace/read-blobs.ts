import type { Exec } from "../exec/types.js";
import { blobId, readBatch } from "./read-commit-changes.js";

/**
 * The bytes of these blobs from the checkout's object store, in one `git cat-file --batch`: what a file will hold
 * before `read-tree` has written it. Only blobs read back exactly (checked against their id) are returned; one that
 * is missing, not UTF-8 (git's output reaches us as text) or cut off is absent, and the caller reads the work tree
 * once it is written.
 */
export async function readBlobs(exec: Exec, root: string, ids: readonly string[]): Promise<Map<string, Buffer>> {
  const wanted = [...new Set(ids)].filter((id) => /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(id));
  const got = new Map<string, Buffer>();
  if (!wanted.length) return got;
  const r = await exec.run({
    command: "git",
    args: ["cat-file", "--batch"],
    cwd: root,
    env: { GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0" },
    input: wanted.join("\n") + "\n",
    maxOutputBytes: 400_000_000,
  });
  if (r.exitCode !== 0) return got;
  for (const [id, blob] of readBatch(r.stdout))
    if (blob.bytes && wanted.includes(id) && blobId(blob.bytes, id.length) === id) got.set(id, blob.bytes);
  return got;
}
