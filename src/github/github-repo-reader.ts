import { httpStatus } from "./github-api.js";
import type { GitHubClient, RepoRef } from "./github-client.js";

/** Largest file the check discovery reads through the API (a workflow, a manifest). */
const MAX_FILE_CHARS = 512_000;

/**
 * Files of one branch through the contents API, for the check discovery (src/checks/discover: the `RepoReader`
 * shape). The App passes the DEFAULT branch: what runs is decided by the repository's own branch, never by a pull
 * request's head. A 404 is "absent"; any other failure throws (discovery reports it), so an outage is never
 * mistaken for a repository without checks. Answers are kept for the reader's life (one run or one command).
 */
export function createGitHubRepoReader(api: GitHubClient, where: RepoRef & { ref: string }) {
  const files = new Map<string, Promise<string | null>>();
  const dirs = new Map<string, Promise<string[]>>();
  const route = "GET /repos/{owner}/{repo}/contents/{path}";
  return {
    list(dir: string): Promise<string[]> {
      let p = dirs.get(dir);
      if (!p) {
        p = api
          .request(route, { owner: where.owner, repo: where.repo, path: dir, ref: where.ref })
          .then((res) => {
            const data: unknown = res.data;
            if (!Array.isArray(data)) return [];
            return data.flatMap((e: { name?: unknown; type?: unknown }) =>
              typeof e.name === "string" ? [e.type === "dir" ? `${e.name}/` : e.name] : [],
            );
          })
          .catch((error: unknown) => {
            if (httpStatus(error) === 404) return [];
            throw error;
          });
        dirs.set(dir, p);
      }
      return p;
    },
    read(path: string): Promise<string | null> {
      let p = files.get(path);
      if (!p) {
        p = api
          .request(route, { owner: where.owner, repo: where.repo, path, ref: where.ref, mediaType: { format: "raw" } })
          .then((res) => {
            const data: unknown = res.data;
            return typeof data === "string" && data.length <= MAX_FILE_CHARS ? data : null;
          })
          .catch((error: unknown) => {
            if (httpStatus(error) === 404) return null;
            throw error;
          });
        files.set(path, p);
      }
      return p;
    },
  };
}
