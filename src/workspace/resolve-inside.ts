import { realpath } from "node:fs/promises";
import path from "node:path";
import { checkPathPolicy, normalizeEditPath } from "../edits/path-policy.js";

export type ResolvedPath =
  /** `abs`: the path inside the checkout; `real`: where it really lands (differs when a symlink inside the tree is followed). */
  | { ok: true; abs: string; real: string }
  | { ok: false; message: string };

/**
 * Resolve a repo-relative path inside `root`. Refuses absolute paths, `..`, `.git/`, protected globs, and any
 * path whose realpath (or its nearest existing parent's) leaves the checkout or enters `.git` through a
 * symbolic link (AIDER.md A.18). Symlinks that stay inside are allowed and reported in `real`.
 */
export async function resolveInside(root: string, rel: string, protectedPaths: readonly string[]): Promise<ResolvedPath> {
  const policy = checkPathPolicy(rel, protectedPaths);
  if (policy) return { ok: false, message: policy.message };
  const realRoot = await realpath(root);
  const abs = path.resolve(realRoot, normalizeEditPath(rel));
  if (!isWithin(realRoot, abs)) return { ok: false, message: `Refused to edit \`${rel}\`: it resolves outside the repository.` };
  let probe = abs;
  let real = abs;
  for (;;) {
    const found = await realpath(probe).catch(() => null);
    if (found !== null) {
      if (!isWithin(realRoot, found)) return { ok: false, message: `Refused to edit \`${rel}\`: a symbolic link leads outside the repository.` };
      if (path.relative(realRoot, found).split(path.sep).includes(".git")) {
        return { ok: false, message: `Refused to edit \`${rel}\`: a symbolic link leads into \`.git/\`.` };
      }
      // Re-attach the missing tail (if any) to the real location of the nearest existing ancestor.
      real = path.join(found, path.relative(probe, abs));
      break;
    }
    const parent = path.dirname(probe);
    if (parent === probe) break;
    probe = parent;
  }
  return { ok: true, abs, real };
}

function isWithin(root: string, p: string): boolean {
  const r = path.relative(root, p);
  return r === "" || (!r.startsWith(`..${path.sep}`) && r !== ".." && !path.isAbsolute(r));
}
