import { untickPlan } from "../plan-approval.js";
import { threadOf, type ActOn } from "./act-deps.js";

/**
 * A sender without the permission the command needs: one polite reply per user and thread (later commands from the
 * same user get none). A plan's approve box ticked by someone who may not approve is unticked again; nothing runs.
 */
export const replyUnauthorized: ActOn<"reply-unauthorized"> = async (action, { github, botLogin, log }) => {
  const { facts } = action;
  const where = threadOf(facts);
  log.info({ sender: facts.sender.login }, "unauthorized command");
  if (!(await github.findComment({ ...where, marker: action.marker, botLogin }))) {
    await github.ensureComment({ ...where, marker: action.marker, botLogin, body: action.body });
  }
  if (facts.planComment) await untickPlan(github, facts.planComment.id);
  return { kind: "replied", reason: "unauthorized" };
};
