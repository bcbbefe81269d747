import { threadReplyMarker } from "../github/markers.js";
import type { RunEnding } from "../run/run-outcome.js";
import { replyInThread } from "../context/fetch/review-threads.js";
import { GitHubError } from "../github/github-error.js";
import type { RepoGitHub } from "../github/repo-github.js";
import type { ReviewThread } from "../context/pr-data.js";
import { readThreadReplies, renderThreadReply } from "../context/review-request.js";

export interface ThreadRepliesArgs {
  /** The gateway of the pull request's repository. */
  github: RepoGitHub;
  pull: number;
  threads: readonly ReviewThread[];
  /** The run's job id: each reply carries it in a hidden marker. */
  jobId: string;
  outcome: RunEnding;
  /** `reviews.resolve_threads` */
  resolve: boolean;
}

/**
 * After an `address-reviews` run: reply in each addressed thread with what was done for it (the model's
 * `THREAD <id>: …` line) or why not, and resolve the threads that were fixed when the config allows. A thread counts
 * as fixed only when the commit was pushed, the model reported on the thread, and the commit touched the thread's
 * file: resolving hides the discussion, so a thread is never resolved on the model's word alone. Returns the
 * markdown the status comment adds; a failed reply or resolve is a line there, never a failed run.
 */
export async function replyToThreads(a: ThreadRepliesArgs): Promise<string | null> {
  if (a.threads.length === 0) return null;
  const o = a.outcome;
  // A run that errored, was cancelled or refused has nothing to say per thread: its status comment says why.
  if (o.kind !== "pushed" && o.kind !== "not-pushed" && o.kind !== "patch") return null;
  const answer = o.result.outcome === "no-changes" ? o.result.answer : o.result.explanation;
  const replies = readThreadReplies(
    answer,
    a.threads.map((t) => t.id),
  );
  const edited = "editedFiles" in o.result ? o.result.editedFiles.map((f) => f.path) : [];
  const lines: string[] = [];
  for (const t of a.threads) {
    const said = replies.get(t.id)!;
    const fixed = o.kind === "pushed" && said.mentioned && edited.includes(t.path);
    let resolved = false;
    const problems: string[] = [];
    if (fixed && a.resolve) {
      try {
        resolved = await a.github.resolveReviewThread(t.id);
      } catch (error) {
        problems.push(`could not resolve it (${describe(error)})`);
      }
    }
    const text =
      o.kind === "pushed"
        ? said.text
        : o.kind === "patch"
          ? `${said.text} (Not pushed: this pull request comes from a fork; the patch is in my status comment.)`
          : `${said.text} (Nothing was pushed; my status comment says why.)`;
    // A re-run of this job (its worker died after replying) finds its reply in the thread and does not repeat it.
    const marker = threadReplyMarker(a.jobId, t.id);
    if (!t.comments.some((c) => c.body.includes(marker))) {
      try {
        await replyInThread(
          a.github,
          a.pull,
          t,
          `${marker}\n${renderThreadReply({ text, ...(fixed && o.kind === "pushed" ? { commitSha: o.sha, commitUrl: o.url } : {}), resolved })}`,
        );
      } catch (error) {
        problems.push(`could not reply (${describe(error)})`);
      }
    }
    lines.push(
      `- \`${t.id}\` (\`${t.path}\`): ${fixed ? "addressed" : "not changed"}${resolved ? ", resolved" : ""}${problems.length ? ` — ${problems.join("; ")}` : ""}`,
    );
  }
  return `**Review threads**\n${lines.join("\n")}`;
}

function describe(error: unknown): string {
  if (error instanceof GitHubError) return `HTTP ${error.status}`;
  return error instanceof Error ? error.message : String(error);
}
