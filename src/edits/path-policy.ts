import ignore from "ignore";
import type { FailureReason } from "./types.js";

export const DEFAULT_PROTECTED_PATHS: readonly string[] = [".github/workflows/**"];

/**
 * Repo-relative form of a path the model wrote: backslashes → `/`, `./` and duplicate slashes removed.
 * `normalizeEditPath(".\\src//a.ts") === "src/a.ts"`
 */
export function normalizeEditPath(p: string): string {
  const s = p
    .trim()
    .replace(/\\/g, "/")
    .replace(/\/{2,}/g, "/");
  // `a/./b` → `a/b`; a leading `/` (absolute) and a trailing `/` (a folder) are kept for the policy to refuse.
  const lead = s.startsWith("/") ? "/" : "";
  const trail = s.endsWith("/") && s.length > 1 ? "/" : "";
  const parts = s.split("/").filter((part) => part !== "" && part !== ".");
  return parts.length ? lead + parts.join("/") + trail : lead;
}

/**
 * Whether an edit may touch this path (docs/behaviour.md#paths-stay-inside-the-checkout): no absolute paths, no `..` escape, nothing under `.git/`,
 * nothing matching a protected glob. Symlinks are checked by the workspace, which can see the disk.
 * `checkPathPolicy("../x", []) → { reason: "unsafe-path", … }`
 */
export function checkPathPolicy(
  path: string,
  protectedGlobs: readonly string[] = DEFAULT_PROTECTED_PATHS,
): { reason: FailureReason; message: string } | null {
  const p = normalizeEditPath(path);
  const unsafe = (why: string) => ({ reason: "unsafe-path" as const, message: `Refused to edit \`${path}\`: ${why}.` });
  if (p === "") return unsafe("the path is empty");
  if (p.endsWith("/")) return unsafe("the path names a folder, not a file");
  if (p.startsWith("/") || /^[a-zA-Z]:/.test(p) || p.startsWith("~"))
    return unsafe("absolute paths are not allowed; use a path relative to the repository root");
  const parts = p.split("/");
  if (parts.includes("..")) return unsafe("`..` would leave the repository");
  // Case-insensitive: on macOS and Windows checkouts `.GIT/config` is the same file as `.git/config`.
  if (parts.some((part) => part.toLowerCase() === ".git")) return unsafe("files under `.git/` are never edited");
  if (parts.some((part) => part.includes("\0"))) return unsafe("the path contains a NUL character");
  if (
    protectedGlobs.length > 0 &&
    ignore()
      .add([...protectedGlobs])
      .ignores(p)
  ) {
    return unsafe(`it matches a protected path (${protectedGlobs.join(", ")}) in the repository's aider-bot config`);
  }
  return null;
}

/**
 * The policy for the path an edit really lands on, when a symbolic link inside the checkout leads `requested`
 * elsewhere (`wf/ci.yml` with `wf -> .github/workflows`): `.git/` and the protected globs are judged on `resolved`,
 * and the message names both so the model and the user see why.
 * `checkResolvedPathPolicy("wf/ci.yml", ".github/workflows/ci.yml")?.message` mentions both paths.
 */
export function checkResolvedPathPolicy(
  requested: string,
  resolved: string,
  protectedGlobs: readonly string[] = DEFAULT_PROTECTED_PATHS,
): { reason: FailureReason; message: string } | null {
  const problem = checkPathPolicy(resolved, protectedGlobs);
  if (!problem || resolved === normalizeEditPath(requested)) return problem;
  const why = problem.message.slice(`Refused to edit \`${resolved}\`: `.length).replace(/\.$/, "");
  return {
    reason: problem.reason,
    message: `Refused to edit \`${requested}\`: through a symbolic link it is \`${resolved}\`, and ${why}.`,
  };
}
