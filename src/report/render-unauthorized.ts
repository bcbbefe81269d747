import type { Permission } from "../config/repo-config.js";
import { unauthorizedMarker } from "../github/markers.js";

/**
 * The one polite reply to a user who may not run a command here (pure). The marker is per user; the comment lives on
 * one issue/PR, so the handler finds it again and does not answer every further comment.
 * `renderUnauthorized({ login: "ann", needed: "write", have: "read", command: "aider" })`
 */
export function renderUnauthorized(args: {
  login: string;
  needed: Permission;
  have: Permission | "none";
  command: string;
}): string {
  const have = args.have === "none" ? "no access" : `\`${args.have}\``;
  return [
    unauthorizedMarker(args.login),
    `Thanks for the request. @${args.login} needs \`${args.needed}\` permission or higher on this repository to use \`/${args.command}\` (you have ${have}).`,
    "",
    "A maintainer can run it for you. I won't reply to further commands from you on this thread.",
  ].join("\n");
}
