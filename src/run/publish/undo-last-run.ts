import { publishCommit, signingNote } from "./publish-commit.js";
import type { RunEnding } from "../run-outcome.js";
import type { RunRequest } from "../run-request.js";
import type { RunGit, RunGitHub } from "../run-ports.js";
import { runIdFromMessage, runTrailers } from "./run-trailers.js";

/**
 * `/aider undo`: revert the bot's last commit on the PR branch with a new revert commit (history is never
 * rewritten). Refused, with the reason, when someone pushed on top of it or the bot has no commit here.
 */
export async function undoLastRun(args: {
  req: RunRequest;
  deps: { git: RunGit; github: RunGitHub };
  dir: string;
  branch: string;
  token: string;
  headSha: string;
}): Promise<RunEnding> {
  const { deps, dir } = args;
  const commits = await deps.git.recentCommits(dir, 50);
  const index = commits.findIndex((c) => runIdFromMessage(c.message) !== null && !/^Revert "/.test(c.message));
  const target = commits[index];
  if (target === undefined) {
    return { kind: "refused", message: "I found no commit of mine on this branch to undo." };
  }
  if (index > 0) {
    const newer = commits
      .slice(0, index)
      .map((c) => `\`${c.sha.slice(0, 7)}\``)
      .join(", ");
    return {
      kind: "refused",
      message: `Someone pushed on top of my last commit \`${target.sha.slice(0, 7)}\` (newer: ${newer}), so I won't revert it automatically. Revert it by hand with \`git revert ${target.sha.slice(0, 7)}\`.`,
    };
  }
  const sha = await deps.git.revert({
    dir,
    sha: target.sha,
    trailers: runTrailers(args.req.jobId, args.req.requester).filter((t) => t.startsWith("Co-authored-by")),
  });
  // The revert is made (and signed) by GitHub's API too, where it can.
  const published = await publishCommit({ req: args.req, deps, dir, sha, branch: args.branch, token: args.token });
  const made = published.via === "api" ? published.oid : sha;
  const note = signingNote(published);
  return {
    kind: "reverted",
    sha: made,
    revertedSha: target.sha,
    url: deps.github.commitUrl(made),
    ...(note ? { signing: note } : {}),
  };
}
