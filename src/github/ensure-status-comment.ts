import { createComment, ensureComment, updateComment, type IssueComment } from "./ensure-comment.js";
import type { GitHubClient, RepoRef } from "./github-client.js";
import { runMarker } from "./markers.js";

/**
 * Create or update the ONE status comment of a run, found by `<!-- aider-bot:run:<jobId> -->`. A redelivered
 * webhook or a restarted job edits the same comment instead of adding another. With `commentId` (known since the
 * job was queued) it edits directly and skips listing the thread. Returns the comment id.
 * `await ensureStatusComment(api, { owner, repo, issueNumber: 3, jobId: delivery, body: renderStage("queued", req) })`
 */
export async function ensureStatusComment(
  api: GitHubClient,
  args: RepoRef & {
    issueNumber: number;
    jobId: string;
    body: string;
    botLogin?: string;
    commentId?: number;
    known?: "none-yet";
    /** The thread's comments, when the caller started reading them earlier (searched for the marker instead). */
    listed?: Promise<IssueComment[]>;
  },
): Promise<number> {
  const marker = runMarker(args.jobId);
  const body = args.body.includes(marker) ? args.body : `${marker}\n${args.body}`;
  if (args.commentId !== undefined) {
    await updateComment(api, { owner: args.owner, repo: args.repo, commentId: args.commentId, body });
    return args.commentId;
  }
  // The caller knows no comment of this job can exist yet (its first triage attempt): post without listing first.
  if (args.known === "none-yet")
    return createComment(api, { owner: args.owner, repo: args.repo, issueNumber: args.issueNumber, body });
  return ensureComment(api, {
    owner: args.owner,
    repo: args.repo,
    issueNumber: args.issueNumber,
    marker,
    body,
    botLogin: args.botLogin,
    ...(args.listed ? { listed: args.listed } : {}),
  });
}
