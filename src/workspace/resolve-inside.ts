import { lstat, realpath } from "node:fs/promises";
import path from "node:path";
import { checkPathPolicy, checkResolvedPathPolicy, normalizeEditPath } from "../edits/path-policy.js";
import { hasGitPart, insideRelative } from "./confined-reader.js";

export type ResolvedPath =
  /** `target`: the absolute path the change lands on, with no symbolic link in it; `resolved`: the same, repo-relative. */
  { ok: true; target: string; resolved: string } | { ok: false; message: string };

/**
 * Where a write or delete of the repo-relative `rel` really lands in `root`, judged by the path policy on that
 * resolved path: the real path of the parent folder (or of its nearest existing ancestor, for new folders) plus the
 * name. A symbolic link in the middle of the path is followed, so `wf/ci.yml` with `wf -> .github/workflows` is
 * judged as `.github/workflows/ci.yml`. A link as the last component is written through when it leads to a regular
 * file inside (the link is kept), and deleted itself on delete. Anything landing outside the checkout or in
 * `.git/` is refused. Reads go through `createConfinedReader` instead.
 */
export async function resolveInside(
  root: string,
  rel: string,
  protectedPaths: readonly string[],
  change: "write" | "delete",
): Promise<ResolvedPath> {
  const policy = checkPathPolicy(rel, protectedPaths);
  if (policy) return { ok: false, message: policy.message };
  const refuse = (why: string): ResolvedPath => ({ ok: false, message: `Refused to edit \`${rel}\`: ${why}.` });
  const realRoot = await realpath(root);
  const abs = path.join(realRoot, normalizeEditPath(rel));
  const parent = await realParent(realRoot, path.dirname(abs));
  if (parent === null) return refuse("a folder on its way is a symbolic link that leads nowhere");
  let target = path.join(parent, path.basename(abs));
  const landed = (p: string): string | null => {
    const r = insideRelative(realRoot, p);
    if (r === null) return "a symbolic link leads outside the repository";
    if (hasGitPart(r)) return "a symbolic link leads into `.git/`";
    return null;
  };
  const early = landed(target);
  if (early) return refuse(early);
  // Absent is the common case (a new file); anything else lstat fails on is refused by the write itself.
  const existing = await lstat(target).catch(() => null);
  if (existing?.isSymbolicLink() && change === "write") {
    const real = await realpath(target).catch(() => null); // dangling link: refused just below
    if (real === null)
      return refuse("it is a symbolic link that leads nowhere; delete it or edit the file it should name");
    const where = landed(real);
    if (where) return refuse(where);
    const info = await lstat(real);
    if (!info.isFile()) return refuse("it is a symbolic link to something other than a regular file");
    target = real;
  } else if (existing && !existing.isFile() && !existing.isSymbolicLink()) {
    return refuse("it is not a regular file");
  }
  const resolved = insideRelative(realRoot, target) as string;
  const judged = checkResolvedPathPolicy(rel, resolved, protectedPaths);
  if (judged) return { ok: false, message: judged.message };
  return { ok: true, target, resolved };
}

/**
 * Real path of `dir`: of its nearest existing ancestor, with the missing folders (which hold no links) re-attached.
 * Null when one of them is a link that leads nowhere: creating folders there would follow it.
 */
async function realParent(realRoot: string, dir: string): Promise<string | null> {
  for (let probe = dir; ; probe = path.dirname(probe)) {
    // A failed realpath means missing (walk up) or a dangling link (lstat still sees it: refuse).
    const found = await realpath(probe).catch(() => null);
    if (found !== null) return path.join(found, path.relative(probe, dir));
    if (
      await lstat(probe).then(
        () => true,
        () => false,
      )
    )
      return null;
    // The root exists (its real path was taken), so the walk always ends there.
    if (probe === realRoot || path.dirname(probe) === probe) return dir;
  }
}
