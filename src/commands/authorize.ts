import type { Permission } from "../config/repo-config.js";
import { httpStatus, type GitHubApi } from "../github/github-api.js";

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
 * answers itself; users need `min_permission` (or `ask_permission` for ask/help) from the collaborator-permission
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
  if (sender.login.toLowerCase() === args.selfLogin.toLowerCase() || (args.selfAppId !== undefined && sender.appId === args.selfAppId)) {
    return { allow: false, reason: "self", message: "the app ignores its own comments" };
  }
  if (sender.type === "Bot" && !(sender.appId !== undefined && trigger.allowed_bots.includes(sender.appId))) {
    return { allow: false, reason: "bot", message: `bot ${sender.login} is not in trigger.allowed_bots` };
  }
  const needed = args.verb === "ask" || args.verb === "help" ? trigger.ask_permission : trigger.min_permission;
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

/** Map the API's answer (`permission` plus the finer `role_name`) to our permission scale. */
export function permissionFromApi(data: { permission?: string; role_name?: string }): Permission | "none" {
  const role = data.role_name ?? data.permission ?? "none";
  if (role in RANK) return role as Permission | "none";
  // Custom roles report their base permission in `permission`.
  const base = data.permission ?? "none";
  return base in RANK ? (base as Permission | "none") : "none";
}

/**
 * The sender's permission from `GET /repos/{owner}/{repo}/collaborators/{username}/permission` (the io half of
 * authorization). 404 (no such user / not visible) means no access; other errors propagate, so an outage is
 * logged as one instead of being told to the user as "you lack permission".
 */
export async function lookupPermission(api: GitHubApi, args: { owner: string; repo: string; username: string }): Promise<Permission | "none"> {
  try {
    const res = await api.request("GET /repos/{owner}/{repo}/collaborators/{username}/permission", { owner: args.owner, repo: args.repo, username: args.username });
    return permissionFromApi(res.data as { permission?: string; role_name?: string });
  } catch (error) {
    if (httpStatus(error) === 404) return "none";
    throw error;
  }
}
