import type { RepoGitHub } from "../../github/repo-github.js";
import type { InstructionSource } from "../load-instructions.js";

/**
 * Instruction files from the repository's DEFAULT branch through GitHub's API, as `.github/aider.yml` is read: never
 * from a pull request's head or the checkout (which is the head), so a fork cannot instruct the bot. The files are
 * listed by the git tree API (one request; GitHub caps it and says when it did) and read by the contents API at the
 * branch.
 */
export function defaultBranchInstructions(github: RepoGitHub, branch: string): InstructionSource {
  return {
    async list() {
      const { files, truncated } = await github.listBranchFiles(branch);
      return { paths: files, truncated };
    },
    read: (path) => github.readFile(path, branch),
  };
}
