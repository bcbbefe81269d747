import { ensureComment } from "../../github/ensure-comment.js";
import { renderChecksReply } from "../../report/render-checks-reply.js";
import { threadOf, type ActOn } from "./act-context.js";

/** `/aider checks`: the check plan of the default branch, as a reply. */
export const showChecks: ActOn<"show-checks"> = async (action, { api, botLogin }) => {
  const { facts, marker } = action;
  const where = { owner: facts.owner, repo: facts.repo, defaultBranch: facts.defaultBranch };
  const body = await renderChecksReply(api, where, action.config);
  await ensureComment(api, { ...threadOf(facts), marker, botLogin, body: `${marker}\n${body}` });
  return { kind: "replied", reason: "checks" };
};
