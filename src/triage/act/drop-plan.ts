import { dropPlans } from "../plan-approval.js";
import { threadOf, type ActOn } from "./act-deps.js";

/** `/aider plan drop`: every open plan of the thread dropped, and a reply saying how many. */
export const dropPlan: ActOn<"drop-plan"> = async (action, { github, botLogin }) => {
  const { facts, marker } = action;
  const where = threadOf(facts);
  const body = await dropPlans(github, { ...where, botLogin, by: facts.sender.login, command: action.command });
  await github.ensureComment({ ...where, marker, botLogin, body: `${marker}\n${body}` });
  return { kind: "replied", reason: "plan dropped" };
};
