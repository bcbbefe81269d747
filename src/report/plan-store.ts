import type { RepoGitHub } from "../github/repo-github.js";
import { readPlanRecord, renderPlanComment, type PlanRecord } from "./plan-comment.js";

/** A plan comment of the bot, as read from GitHub. */
export interface StoredPlan {
  commentId: number;
  body: string;
  rec: PlanRecord;
}

/** The comment calls plans are stored with, on the thread's repository. */
export type PlanComments = Pick<RepoGitHub, "listComments" | "readCommentBody" | "updateComment">;

/** The bot's plan comments on an issue/PR, oldest first. */
export async function listPlans(github: PlanComments, issueNumber: number, botLogin: string): Promise<StoredPlan[]> {
  const comments = await github.listComments(issueNumber);
  return comments.flatMap((c) => {
    if (c.user !== botLogin) return [];
    const rec = readPlanRecord(c.body);
    return rec ? [{ commentId: c.id, body: c.body, rec }] : [];
  });
}

/** One plan comment by id (the one whose box was ticked), or null when it is gone or holds no plan. */
export async function readPlan(github: PlanComments, commentId: number): Promise<StoredPlan | null> {
  const body = await github.readCommentBody("issue-comment", commentId);
  const rec = body === null ? null : readPlanRecord(body);
  return body !== null && rec ? { commentId, body, rec } : null;
}

/** The hidden markers of a comment other than the plan's (the run marker), kept when the plan is rendered again. */
export function otherMarkers(body: string): string {
  return [...body.matchAll(/<!-- aider-bot:(?!plan)[a-z-]+:[^>]*? -->/g)].map((m) => m[0]).join("\n");
}

/** Render the plan comment again from `rec` (state, ticks), keeping its other markers. */
export async function writePlan(
  github: PlanComments,
  plan: StoredPlan,
  rec: PlanRecord,
  command: string,
): Promise<string> {
  const body = renderPlanComment(rec, { command, head: otherMarkers(plan.body) });
  await github.updateComment(plan.commentId, body);
  return body;
}

/**
 * Mark every open plan of the thread but `keep` as `state` (a newer plan supersedes them; `plan drop` drops them).
 * Returns how many were changed.
 */
export async function closePlans(
  github: PlanComments,
  issueNumber: number,
  args: { botLogin: string; keep?: number; state: "superseded" | "dropped"; by?: string; command: string },
): Promise<number> {
  const open = (await listPlans(github, issueNumber, args.botLogin)).filter(
    (p) => p.commentId !== args.keep && (p.rec.state === "active" || p.rec.state === "approved"),
  );
  for (const p of open)
    await writePlan(github, p, { ...p.rec, state: args.state, ...(args.by ? { by: args.by } : {}) }, args.command);
  return open.length;
}
