import type { GitHubClient, RepoRef } from "../../github/github-client.js";
import { listPullRequestFiles } from "../../github/pull-request.js";
import type { PrFile } from "../pr-data.js";

/** The PR's changed files with their patches (GitHub lists at most 3,000; we read up to 1,000). */
export async function fetchPrFiles(
  api: GitHubClient,
  where: RepoRef,
  pull: number,
): Promise<{ files: PrFile[]; truncated: boolean }> {
  const { items, truncated } = await listPullRequestFiles(api, { ...where, pullNumber: pull, maxPages: 10 });
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
