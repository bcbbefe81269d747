import type { Permission } from "../config/repo-config.js";
import type { GitHubClient, RepoRef } from "./github-client.js";
import { callGitHub, isGitHubFailure } from "./github-error.js";

/** GitHub's repository roles that are also our permission scale (custom roles are mapped to their base). */
const KNOWN: readonly (Permission | "none")[] = ["none", "read", "triage", "write", "maintain", "admin"];

const isKnown = (role: string): role is Permission | "none" => KNOWN.some((k) => k === role);

/** Map the API's answer (`permission` plus the finer `role_name`) to our permission scale (pure). */
export function permissionFromApi(data: { permission?: string; role_name?: string }): Permission | "none" {
  const role = data.role_name ?? data.permission ?? "none";
  if (isKnown(role)) return role;
  // Custom roles report their base permission in `permission`.
  const base = data.permission ?? "none";
  return isKnown(base) ? base : "none";
}

/**
 * The user's permission from `GET /repos/{owner}/{repo}/collaborators/{username}/permission` (the I/O half of
 * authorization; the decision is `authorize` in commands/). 404 (no such user / not visible) means no access; other
 * errors propagate, so an outage is logged as one instead of being told to the user as "you lack permission".
 */
export async function lookupPermission(
  api: GitHubClient,
  args: RepoRef & { username: string },
): Promise<Permission | "none"> {
  try {
    const { data } = await callGitHub(`Reading @${args.username}'s permission on ${args.owner}/${args.repo}`, () =>
      api.rest.repos.getCollaboratorPermissionLevel({ owner: args.owner, repo: args.repo, username: args.username }),
    );
    return permissionFromApi(data);
  } catch (error) {
    if (isGitHubFailure(error, "not-found")) return "none";
    throw error;
  }
}
