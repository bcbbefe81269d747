import { threadOf, type ActOn } from "./act-deps.js";

/**
 * `/aider cancel`: the thread's queued and running work stopped. Cancelling again is harmless, so a retried triage
 * repeats it; its reply is found by the delivery's marker, and one posted by an earlier attempt stands (a repeat
 * would find nothing left and say so, wrongly).
 */
export const cancelRuns: ActOn<"cancel"> = async (action, { github, services, botLogin }) => {
  const cancelled = await services.runs.cancel(action.key);
  const count = cancelled.dropped + cancelled.aborted;
  const where = threadOf(action.facts);
  const { marker } = action;
  if (await github.findComment({ ...where, marker, botLogin })) return { kind: "cancelled", count };
  const text = count ? `🛑 Cancelled ${count} request${count === 1 ? "" : "s"}.` : "There is nothing to cancel here.";
  await github.createComment(where.issueNumber, `${marker}\n${text}`);
  return { kind: "cancelled", count };
};
