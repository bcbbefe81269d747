import { fail, ok, type Result } from "../result.js";
import type { ApprovedPlan } from "../run/run-request.js";
import { planIntact, untickApproval } from "../report/plan-comment.js";
import { closePlans, listPlans, readPlan, writePlan, type StoredPlan } from "../report/plan-store.js";
import type { RepoGitHub } from "../github/repo-github.js";

/** Why an approval does not start a run; the message is the bot's reply. */
export type ApprovalRefusal = "no-plan" | "plan-closed" | "plan-changed" | "plan-stale";

/**
 * An approval (a ticked box on plan comment `commentId`, or `/aider approve` for the thread's newest open
 * plan) checked and recorded: the plan must be open, unchanged since the bot wrote it, and made on `head` (the
 * branch's head now). The plan comment is then marked approved, and the plan returned for the run.
 */
export async function approvePlan(
  github: RepoGitHub,
  args: {
    issueNumber: number;
    botLogin: string;
    commentId?: number;
    approver: string;
    command: string;
    head: string;
    corrections: string;
  },
): Promise<Result<ApprovedPlan, ApprovalRefusal>> {
  const { command } = args;
  const plan: StoredPlan | null | undefined =
    args.commentId !== undefined
      ? await readPlan(github, args.commentId)
      : (await listPlans(github, args.issueNumber, args.botLogin))
          .filter((p) => p.rec.state === "active" || p.rec.state === "approved")
          .at(-1);
  if (!plan)
    return fail(
      "no-plan",
      `There is no open plan here to approve. Ask for one with \`/${command} plan <what to change>\`.`,
    );
  const { rec } = plan;
  if (rec.state === "superseded" || rec.state === "dropped") {
    return fail(
      "plan-closed",
      `That plan was ${rec.state === "dropped" ? "dropped" : "replaced by a newer one"}, so it cannot be approved. Approve the newest plan, or ask for one with \`/${command} plan …\`.`,
    );
  }
  if (!planIntact(plan.body, rec)) {
    return fail(
      "plan-changed",
      `The plan comment was edited since I wrote it, so I will not run it: what would run is no longer what is shown. Write \`/${command} approve <your corrections>\` under a plan of mine, or ask for a new plan with \`/${command} plan …\`.`,
    );
  }
  if (rec.sha !== args.head) {
    return fail(
      "plan-stale",
      `The branch moved since this plan was made: it was made on \`${rec.sha.slice(0, 7)}\` and the head is now \`${args.head.slice(0, 7)}\` (someone pushed). The plan may no longer fit the code; ask for a new one with \`/${command} plan …\`.`,
    );
  }
  await writePlan(github, plan, { ...rec, state: "approved", by: args.approver, done: [] }, command);
  const corrections = args.corrections.trim();
  return ok({
    id: rec.id,
    commentId: plan.commentId,
    sha: rec.sha,
    text: rec.text,
    ...(corrections ? { corrections } : {}),
  });
}

/** The approve box of plan comment `commentId` unticked again (ticked by someone who may not approve). */
export async function untickPlan(github: RepoGitHub, commentId: number): Promise<void> {
  const plan = await readPlan(github, commentId);
  if (!plan) return;
  const body = untickApproval(plan.body);
  if (body !== plan.body) await github.updateComment(commentId, body);
}

/** `/aider plan drop`: every open plan of the thread is marked dropped; the reply says what happened. */
export async function dropPlans(
  github: RepoGitHub,
  args: { issueNumber: number; botLogin: string; by: string; command: string },
): Promise<string> {
  const n = await closePlans(github, args.issueNumber, {
    botLogin: args.botLogin,
    state: "dropped",
    by: args.by,
    command: args.command,
  });
  return n
    ? `🗑 Dropped ${n === 1 ? "the open plan" : `${n} open plans`}; nothing will run from ${n === 1 ? "it" : "them"}.`
    : `There is no open plan here to drop.`;
}
