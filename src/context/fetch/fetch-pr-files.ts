import type { RepoGitHub } from "../../github/repo-github.js";
import type { PrFile } from "../pr-data.js";

/** The PR's changed files with their patches (GitHub lists at most 3,000; we read up to 1,000). */
export async function fetchPrFiles(github: RepoGitHub, pull: number): Promise<{ files: PrFile[]; truncated: boolean }> {
  const { items, truncated } = await github.listPullRequestFiles(pull, 10);
  return {
    truncated,
    files: items.map((f) => ({
      path: f.filename,
      status: f.status,
      additions: f.additions,
      deletions: f.deletions,
      ...(f.patch !== undefined ? { patch: f.patch } : {}),
      ...(f.previous_filename ? { previousPath: f.previous_filename } : {}),
    })),
  };
}
