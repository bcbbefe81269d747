import { ensureComment } from "../../github/ensure-comment.js";
import { threadOf, type ActOn } from "./act-context.js";

/** Help, a usage error, a refusal or the config's problems: one comment, edited in place on a redelivery. */
export const postReply: ActOn<"reply"> = async (action, { api, botLogin }) => {
  await ensureComment(api, { ...threadOf(action.facts), marker: action.marker, botLogin, body: action.body });
  return { kind: "replied", reason: action.reason === "invalid-config" ? "invalid config" : action.reason };
};
