import { payloadField } from "../github/payload-field.js";

/**
 * Which cached repository configs a `push` delivery makes stale (as lookup-cache keys match them), or null for none.
 *
 * Any push to a repository's default branch drops that repository's config, not only one whose commits list
 * `.github/aider.yml`: a push payload's file lists can be incomplete (GitHub caps the commits it lists, and a force
 * push lists only what is new), a missed change would be served for the whole cache TTL, and an extra read costs one
 * request. A push to an account's `.github` repository drops every config of that account: Probot reads the config
 * from there when a repository has none of its own (and `_extends` often points there).
 */
export function configKeysStaleAfterPush(payload: unknown): ((key: string) => boolean) | null {
  const ref = payloadField(payload, "ref");
  const fullName = payloadField(payload, "repository", "full_name");
  const name = payloadField(payload, "repository", "name");
  const defaultBranch = payloadField(payload, "repository", "default_branch");
  if (typeof ref !== "string" || typeof fullName !== "string" || typeof defaultBranch !== "string") return null;
  if (ref !== `refs/heads/${defaultBranch}`) return null;
  const repoKey = `config:${fullName}`.toLowerCase();
  if (typeof name === "string" && name.toLowerCase() === ".github") {
    const ownerPrefix = `config:${fullName.slice(0, fullName.indexOf("/") + 1)}`.toLowerCase();
    return (key) => key.startsWith(ownerPrefix);
  }
  return (key) => key === repoKey;
}
