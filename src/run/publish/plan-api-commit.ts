import type { CommitChanges } from "../../workspace/read-commit-changes.js";
import type { ApiCommitRequest } from "../../github/repo-github.js";

/** GitHub's API takes a commit's files in one request: past this many bytes of contents, git push it is. */
export const API_COMMIT_MAX_BYTES = 30 * 1024 * 1024;

/** A commit GitHub's API can make (the request), or the reason it must be pushed with git. */
export type ApiCommitPlan = { kind: "api"; request: ApiCommitRequest } | { kind: "git"; reason: string };

/**
 * Whether `createCommitOnBranch` can express this commit, and the request if so (pure). It writes regular files and
 * deletes paths, nothing else: a symbolic link, a submodule, a new executable or a mode change, a file whose bytes
 * could not be read exactly (binary) and a change over {@link API_COMMIT_MAX_BYTES} need git.
 */
export function planApiCommit(changes: CommitChanges, branch: string, maxBytes = API_COMMIT_MAX_BYTES): ApiCommitPlan {
  if (changes.bytes > maxBytes)
    return {
      kind: "git",
      reason: `the change is larger than ${maxBytes >= 1024 * 1024 ? `${Math.round(maxBytes / 1024 / 1024)} MB` : `${maxBytes} bytes`}`,
    };
  const additions: ApiCommitRequest["fileChanges"]["additions"] = [];
  const deletions: ApiCommitRequest["fileChanges"]["deletions"] = [];
  for (const e of changes.entries) {
    const at = `\`${e.path}\``;
    if (e.status === "D") {
      if (e.srcMode === "160000") return { kind: "git", reason: `it removes the submodule ${at}` };
      deletions.push({ path: e.path });
      continue;
    }
    if (e.dstMode === "120000" || e.srcMode === "120000") return { kind: "git", reason: `${at} is a symbolic link` };
    if (e.dstMode === "160000" || e.srcMode === "160000") return { kind: "git", reason: `${at} is a submodule` };
    if (e.status === "A" && e.dstMode === "100755") return { kind: "git", reason: `${at} is a new executable file` };
    if (e.srcMode !== e.dstMode && e.status !== "A")
      return { kind: "git", reason: `the mode of ${at} changes (${e.srcMode} → ${e.dstMode})` };
    const bytes = changes.contents.get(e.path);
    if (!bytes) return { kind: "git", reason: `${at} is not UTF-8 text` };
    additions.push({ path: e.path, contents: bytes.toString("base64") });
  }
  if (additions.length === 0 && deletions.length === 0) return { kind: "git", reason: "the commit changes no file" };
  return {
    kind: "api",
    request: {
      branch,
      expectedHeadOid: changes.parent,
      message: splitMessage(changes.message),
      fileChanges: { additions, deletions },
    },
  };
}

/** A commit message as GitHub's headline (its first line) and body (the rest, trailers included) (pure). */
export function splitMessage(message: string): { headline: string; body: string } {
  const lines = message.replace(/\r\n/g, "\n").trimEnd().split("\n");
  const headline = (lines[0] ?? "").trim();
  const body = lines.slice(1).join("\n").replace(/^\n+/, "").trimEnd();
  return { headline, body };
}
