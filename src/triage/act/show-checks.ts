import { renderChecksReply } from "../../report/render-checks-reply.js";
import { threadOf, type ActOn } from "./act-deps.js";

/** `/aider checks`: the check plan of the default branch, as a reply. */
export const showChecks: ActOn<"show-checks"> = async (action, { github, botLogin }) => {
  const { facts, marker } = action;
  const body = await renderChecksReply(github.reader(facts.defaultBranch), facts.defaultBranch, action.config);
  await github.ensureComment({ ...threadOf(facts), marker, botLogin, body: `${marker}\n${body}` });
  return { kind: "replied", reason: "checks" };
};
