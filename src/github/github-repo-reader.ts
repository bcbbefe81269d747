import { httpStatus } from "./github-api.js";
import type { GitHubClient, RepoRef } from "./github-client.js";
import { callGitHub } from "./github-error.js";

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
  const at = `${where.owner}/${where.repo}@${where.ref}`;
  const absent =
    <T>(value: T) =>
    (error: unknown) => {
      if (httpStatus(error) === 404) return value;
      throw error;
    };
  const listDir = (dir: string) =>
    callGitHub(`Listing ${dir} of ${at}`, () =>
      api.rest.repos.getContent({ owner: where.owner, repo: where.repo, path: dir, ref: where.ref }),
    ).then(({ data }) => (Array.isArray(data) ? data.map((e) => (e.type === "dir" ? `${e.name}/` : e.name)) : []));
  // The root through the git trees API (a ref names its tree): the contents API documents no call without a path.
  const listRoot = () =>
    callGitHub(`Listing the root of ${at}`, () =>
      api.rest.git.getTree({ owner: where.owner, repo: where.repo, tree_sha: where.ref }),
    ).then(({ data }) => data.tree.map((e) => (e.type === "tree" ? `${e.path}/` : e.path)));
  return {
    list(dir: string): Promise<string[]> {
      let p = dirs.get(dir);
      if (!p) {
        p = (dir === "" ? listRoot() : listDir(dir)).catch(absent<string[]>([]));
        dirs.set(dir, p);
      }
      return p;
    },
    read(path: string): Promise<string | null> {
      let p = files.get(path);
      if (!p) {
        p = callGitHub(`Reading ${path} of ${at}`, () =>
          api.rest.repos.getContent({
            owner: where.owner,
            repo: where.repo,
            path,
            ref: where.ref,
            mediaType: { format: "raw" },
          }),
        )
          .then(({ data }) => {
            // With the raw media type GitHub answers the file's text; the typed response describes the JSON form.
            const text: unknown = data;
            return typeof text === "string" && text.length <= MAX_FILE_CHARS ? text : null;
          })
          .catch(absent<string | null>(null));
        files.set(path, p);
      }
      return p;
    },
  };
}
