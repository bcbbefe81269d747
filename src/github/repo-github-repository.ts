import type { Permission } from "../config/repo-config.js";
import { downloadAttachment } from "./download-attachment.js";
import type { GitHubClient, RepoRef } from "./github-client.js";
import { createGitHubRepoReader } from "./github-repo-reader.js";
import { readRepoFile } from "./installations.js";
import { lookupPermission } from "./permissions.js";
import { getCommitSha, getRepository, listBranchFiles, type RepositoryInfo, type TreeFile } from "./repositories.js";

/**
 * The repository itself through the gateway: what it is, its branches' files, who may do what on it, and the
 * attachments uploaded to it. Every method may also throw the transport kinds listed on {@link RepoGitHub}.
 */
export interface RepoGitHubRepository {
  /**
   * Its clone URL and default branch (`GET /repos/{owner}/{repo}`).
   * @throws {@link GitHubError} `not-found`: the App is not installed on it, or it was deleted or renamed.
   */
  getRepository(): Promise<RepositoryInfo>;
  /**
   * The commit a branch, tag or sha points at (`GET /repos/{owner}/{repo}/commits/{ref}`).
   * @throws {@link GitHubError} `not-found` or `validation` (GitHub answers 422 for a ref it cannot resolve).
   */
  getCommitSha(ref: string): Promise<string>;
  /**
   * Every file of a branch in one request (`GET …/git/trees/{branch}?recursive=1`); `truncated` when GitHub capped it.
   * @throws {@link GitHubError} `not-found`: no such branch.
   */
  listBranchFiles(branch: string): Promise<{ files: TreeFile[]; truncated: boolean }>;
  /**
   * A file's text (default branch unless `ref`); null when nothing is there — a 404 is an answer, not a throw.
   * @throws {@link GitHubError} `forbidden` (no `contents: read`); an Error when the path is a directory.
   */
  readFile(path: string, ref?: string): Promise<string | null>;
  /**
   * The files of one branch as check discovery reads them (`list`/`read`, answers kept for the reader's life);
   * missing files and folders are empty answers, any other failure throws from `list`/`read`.
   */
  reader(ref: string): ReturnType<typeof createGitHubRepoReader>;
  /**
   * A user's role on the repository, on our permission scale; `"none"` when GitHub does not know them here (404).
   * @throws {@link GitHubError} `forbidden`: the App may not read collaborators (`metadata: read` is enough).
   */
  permissionOf(username: string): Promise<Permission | "none">;
  /**
   * The bytes of an attachment uploaded to GitHub, with the installation's token as a header and `fetch` deciding
   * how much is read and where redirects may lead; null when the answer is not bytes.
   * @throws {@link GitHubError} `not-found` (gone, or private to others) or `forbidden`; the caller's `fetch` errors as they are.
   */
  downloadAttachment(args: {
    url: URL;
    accept: string;
    fetch: typeof fetch;
    signal?: AbortSignal;
  }): Promise<Buffer | null>;
}

/** {@link RepoGitHubRepository} over `api`, bound to `where`. */
export function bindRepository(api: GitHubClient, where: RepoRef): RepoGitHubRepository {
  return {
    getRepository: () => getRepository(api, where),
    getCommitSha: (ref) => getCommitSha(api, { ...where, ref }),
    listBranchFiles: (branch) => listBranchFiles(api, { ...where, branch }),
    readFile: (path, ref) => readRepoFile(api, { ...where, path, ...(ref !== undefined ? { ref } : {}) }),
    reader: (ref) => createGitHubRepoReader(api, { ...where, ref }),
    permissionOf: (username) => lookupPermission(api, { ...where, username }),
    downloadAttachment: (args) => downloadAttachment(api, args),
  };
}
