import type { Permission } from "../config/repo-config.js";

const RANK: Record<Permission | "none", number> = { none: 0, read: 1, triage: 2, write: 3, maintain: 4, admin: 5 };

export interface Sender {
  login: string;
  type: string; // "User" | "Bot" | "Organization"
  /** For bots: the GitHub App id behind it, when the payload says (performed_via_github_app). */
  appId?: number;
}

export type AuthDecision =
  | { allow: true }
  | { allow: false; reason: "self" | "bot"; message: string }
  | { allow: false; reason: "permission"; message: string; needed: Permission; have: Permission | "none" };

/**
 * May this sender run this verb (pure)? Bots are ignored unless their App id is allow-listed; the app never
 * answers itself; users need `min_permission` (or `ask_permission` for ask/help/usage) from the collaborator-permission
 * API. Never `author_association`, never login-name patterns.
 */
export function authorize(args: {
  sender: Sender;
  verb: string;
  /** Permission from the collaborator-permission API; null when the user is not a collaborator. */
  permission: Permission | "none" | null;
  selfLogin: string;
  selfAppId?: number;
  trigger: { min_permission: Permission; ask_permission: Permission; allowed_bots: number[] };
}): AuthDecision {
  const { sender, trigger } = args;
  if (
    sender.login.toLowerCase() === args.selfLogin.toLowerCase() ||
    (args.selfAppId !== undefined && sender.appId === args.selfAppId)
  ) {
    return { allow: false, reason: "self", message: "the app ignores its own comments" };
  }
  if (sender.type === "Bot" && !(sender.appId !== undefined && trigger.allowed_bots.includes(sender.appId))) {
    return { allow: false, reason: "bot", message: `bot ${sender.login} is not in trigger.allowed_bots` };
  }
  const needed =
    args.verb === "ask" || args.verb === "help" || args.verb === "usage" || args.verb === "checks"
      ? trigger.ask_permission
      : trigger.min_permission;
  const have = args.permission ?? "none";
  if (sender.type === "Bot") return { allow: true };
  if (RANK[have] >= RANK[needed]) return { allow: true };
  return {
    allow: false,
    reason: "permission",
    needed,
    have,
    message: `@${sender.login} needs \`${needed}\` permission on this repository to use this command (has \`${have}\`).`,
  };
}
