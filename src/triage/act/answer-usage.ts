import { threadOf, type ActOn } from "./act-deps.js";

/** `/aider usage`: the spend ledger's answer, or why this process has none. */
export const answerUsage: ActOn<"usage"> = async (action, { github, services, botLogin }) => {
  const { facts, marker } = action;
  const text = services.usage
    ? await services.usage(
        { installationId: facts.installationId, owner: facts.owner, repo: facts.repo },
        action.config.budget,
      )
    : "😕 Spend is not tracked by this process (it only receives webhooks); ask again in a moment, or ask the operator.";
  await github.ensureComment({ ...threadOf(facts), marker, botLogin, body: `${marker}\n${text}` });
  return { kind: "replied", reason: "usage" };
};
