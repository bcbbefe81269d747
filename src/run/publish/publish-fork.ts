import type { CoderResult } from "../../coder/types.js";
import { planApiCommit } from "./plan-api-commit.js";
import { movedError } from "./publish-commit.js";
import type { RunEnding } from "../run-outcome.js";
import type { RunGit, RunGitHub } from "../run-ports.js";
import type { RunRequest, RunTarget } from "../run-request.js";

/**
 * A fork's pull request: when its author allows maintainer edits, the commit goes to the fork's branch through
 * GitHub's API (GitHub signs it; the App's token is for this repository only, so no git push to the fork); when
 * edits are not allowed, when GitHub refuses the App, or when the API cannot express the change, the change is
 * posted as a patch, with the reason and what the author can do.
 */
export async function publishToFork(args: {
  req: Pick<RunRequest, "settings">;
  target: Extract<RunTarget, { isFork: boolean }>;
  deps: { git: RunGit; github: RunGitHub };
  dir: string;
  sha: string;
  base: string;
  result: CoderResult;
}): Promise<RunEnding> {
  const { target, deps, dir, sha, result } = args;
  const patch = async (reason?: string): Promise<RunEnding> => ({
    kind: "patch",
    result,
    sha,
    patch: await deps.git.formatPatch(dir, args.base),
    ...(reason ? { reason } : {}),
  });
  const api = deps.github.apiCommits;
  const [owner, repo] = (target.headRepoFullName ?? "").split("/");
  if (!target.maintainerCanModify || !owner || !repo) return patch();
  if (!api || !deps.git.readCommit) return patch("this installation cannot make commits through GitHub's API");
  if (args.req.settings.commitSigning === "git")
    return patch("`commit.signing: git` is set, and I can only reach a fork's branch through GitHub's API");
  const plan = planApiCommit(await deps.git.readCommit(dir, sha), target.headRef);
  if (plan.kind === "git")
    return patch(
      `GitHub's API cannot make this commit (${plan.reason}), and I can only reach a fork's branch through it`,
    );
  const made = await api.create(plan.request, { owner, repo });
  if (made.kind === "moved") throw movedError(target.headRef, made.reason);
  if (made.kind === "refused") {
    return patch(
      `GitHub refused my commit to \`${owner}/${repo}\` branch \`${target.headRef}\`: ${made.reason}. The author can tick "Allow edits by maintainers" on this pull request and ask again, or apply the patch below.`,
    );
  }
  return {
    kind: "pushed",
    result,
    sha: made.oid,
    url: deps.github.commitUrl(made.oid),
    signing: `Committed to the fork's branch \`${owner}/${repo}:${target.headRef}\` (the author allows edits by maintainers).`,
  };
}
