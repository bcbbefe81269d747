import type { GitHubClient } from "../../github/github-client.js";
import { httpStatus } from "../../github/github-api.js";
import type { InstructionSource } from "../load-instructions.js";
import type { RepoRef } from "./github-reader.js";

/**
 * Instruction files from the repository's DEFAULT branch through GitHub's API, as `.github/aider.yml` is read: never
 * from a pull request's head or the checkout (which is the head), so a fork cannot instruct the bot. The files are
 * listed by the git tree API (one request; GitHub caps it and says when it did) and read by the contents API at the
 * branch.
 */
export function defaultBranchInstructions(api: GitHubClient, where: RepoRef, branch: string): InstructionSource {
  return {
    async list() {
      const { data } = await api.request("GET /repos/{owner}/{repo}/git/trees/{tree_sha}", {
        ...where,
        tree_sha: branch,
        recursive: "1",
      });
      const tree = data as { tree: { path?: string; type?: string; size?: number }[]; truncated?: boolean };
      return {
        paths: tree.tree
          .filter((e) => e.type === "blob" && e.path)
          .map((e) => ({ path: e.path!, ...(e.size !== undefined ? { size: e.size } : {}) })),
        truncated: tree.truncated === true,
      };
    },
    async read(path) {
      try {
        const res = await api.request("GET /repos/{owner}/{repo}/contents/{path}", {
          ...where,
          path,
          ref: branch,
          mediaType: { format: "raw" },
        });
        return typeof res.data === "string" ? res.data : null;
      } catch (error) {
        if (httpStatus(error) === 404) return null;
        throw error;
      }
    },
  };
}
