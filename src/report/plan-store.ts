import type { GitHubClient, RepoRef } from "../github/github-client.js";
import { listComments, readCommentBody, updateComment } from "../github/ensure-comment.js";
import { readPlanRecord, renderPlanComment, type PlanRecord } from "./plan-comment.js";

/** A plan comment of the bot, as read from GitHub. */
export interface StoredPlan {
  commentId: number;
  body: string;
  rec: PlanRecord;
}

type Where = RepoRef & { issueNumber: number };

/** The bot's plan comments on an issue/PR, oldest first. */
export async function listPlans(api: GitHubClient, where: Where, botLogin: string): Promise<StoredPlan[]> {
  const comments = await listComments(api, where);
  return comments.flatMap((c) => {
    if (c.user !== botLogin) return [];
    const rec = readPlanRecord(c.body);
    return rec ? [{ commentId: c.id, body: c.body, rec }] : [];
  });
}

/** One plan comment by id (the one whose box was ticked), or null when it is gone or holds no plan. */
export async function readPlan(api: GitHubClient, where: RepoRef, commentId: number): Promise<StoredPlan | null> {
  const body = await readCommentBody(api, { ...where, kind: "issue-comment", id: commentId });
  const rec = body === null ? null : readPlanRecord(body);
  return body !== null && rec ? { commentId, body, rec } : null;
}

/** The hidden markers of a comment other than the plan's (the run marker), kept when the plan is rendered again. */
export function otherMarkers(body: string): string {
  return [...body.matchAll(/<!-- aider-bot:(?!plan)[a-z-]+:[^>]*? -->/g)].map((m) => m[0]).join("\n");
}

/** Render the plan comment again from `rec` (state, ticks), keeping its other markers. */
export async function writePlan(
  api: GitHubClient,
  where: RepoRef,
  plan: StoredPlan,
  rec: PlanRecord,
  command: string,
): Promise<string> {
  const body = renderPlanComment(rec, { command, head: otherMarkers(plan.body) });
  await updateComment(api, { ...where, commentId: plan.commentId, body });
  return body;
}

/**
 * Mark every open plan of the thread but `keep` as `state` (a newer plan supersedes them; `plan drop` drops them).
 * Returns how many were changed.
 */
export async function closePlans(
  api: GitHubClient,
  where: Where,
  args: { botLogin: string; keep?: number; state: "superseded" | "dropped"; by?: string; command: string },
): Promise<number> {
  const open = (await listPlans(api, where, args.botLogin)).filter(
    (p) => p.commentId !== args.keep && (p.rec.state === "active" || p.rec.state === "approved"),
  );
  for (const p of open)
    await writePlan(api, where, p, { ...p.rec, state: args.state, ...(args.by ? { by: args.by } : {}) }, args.command);
  return open.length;
}
