import { realpath } from "node:fs/promises";
import path from "node:path";
import { checkPathPolicy } from "../edits/path-policy.js";

/**
 * Resolve a repo-relative path to an absolute one inside `root`, following symlinks of the path and of its
 * nearest existing parent: a link that leads outside the checkout is refused (AIDER.md A.18).
 * Returns the absolute path, or the reason it is refused.
 */
export async function resolveInside(
  root: string,
  rel: string,
  protectedPaths: readonly string[],
): Promise<{ ok: true; abs: string } | { ok: false; reason: string }> {
  const policy = checkPathPolicy(rel, protectedPaths);
  if (policy) return { ok: false, reason: policy.message };
  const realRoot = await realpath(root);
  const abs = path.resolve(realRoot, rel);
  if (!isWithin(realRoot, abs)) return { ok: false, reason: `Refused to edit \`${rel}\`: it resolves outside the repository.` };
  let probe = abs;
  for (;;) {
    try {
      const real = await realpath(probe);
      if (!isWithin(realRoot, real)) return { ok: false, reason: `Refused to edit \`${rel}\`: a symbolic link leads outside the repository.` };
      if (real !== probe && path.relative(realRoot, real).split(path.sep).includes(".git")) {
        return { ok: false, reason: `Refused to edit \`${rel}\`: a symbolic link leads into \`.git/\`.` };
      }
      break;
    } catch {
      const parent = path.dirname(probe);
      if (parent === probe) break;
      probe = parent;
    }
  }
  return { ok: true, abs };
}

function isWithin(root: string, p: string): boolean {
  const r = path.relative(root, p);
  return r === "" || (!r.startsWith("..") && !path.isAbsolute(r));
}
