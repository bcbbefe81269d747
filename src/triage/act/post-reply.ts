import { threadOf, type ActOn } from "./act-deps.js";

/** Help, a usage error, a refusal or the config's problems: one comment, edited in place on a redelivery. */
export const postReply: ActOn<"reply"> = async (action, { github, botLogin }) => {
  await github.ensureComment({ ...threadOf(action.facts), marker: action.marker, botLogin, body: action.body });
  return { kind: "replied", reason: action.reason === "invalid-config" ? "invalid config" : action.reason };
};
