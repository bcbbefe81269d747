import type { components } from "@octokit/openapi-types";
import type { PrFile } from "../pr-data.js";
import { listAll, type GitHubReader, type RepoRef } from "./github-reader.js";

type DiffEntry = components["schemas"]["diff-entry"];

/** The PR's changed files with their patches (GitHub lists at most 3,000; we read up to 1,000). */
export async function fetchPrFiles(
  api: GitHubReader,
  where: RepoRef,
  pull: number,
): Promise<{ files: PrFile[]; truncated: boolean }> {
  const { items, truncated } = await listAll<DiffEntry>(api, "GET /repos/{owner}/{repo}/pulls/{pull_number}/files", {
    ...where,
    pull_number: pull,
  });
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
