import type { PushEvent } from "../edge/bot-event.js";

/**
 * Which cached repository configs a `push` delivery makes stale (as lookup-cache keys match them), or null for none.
 *
 * Any push to a repository's default branch drops that repository's config, not only one whose commits list
 * `.github/aider.yml`: a push payload's file lists can be incomplete (GitHub caps the commits it lists, and a force
 * push lists only what is new), a missed change would be served for the whole cache TTL, and an extra read costs one
 * request. A push to an account's `.github` repository drops every config of that account: Probot reads the config
 * from there when a repository has none of its own (and `_extends` often points there).
 */
export function configKeysStaleAfterPush(push: PushEvent): ((key: string) => boolean) | null {
  const { fullName, name, owner, defaultBranch } = push.repository;
  if (push.ref !== `refs/heads/${defaultBranch}`) return null;
  const repoKey = `config:${fullName}`.toLowerCase();
  if (name.toLowerCase() === ".github") {
    const ownerPrefix = `config:${owner}/`.toLowerCase();
    return (key) => key.startsWith(ownerPrefix);
  }
  return (key) => key === repoKey;
}
