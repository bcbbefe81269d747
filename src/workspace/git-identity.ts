import type { GitRun } from "./git-runner.js";

export interface GitIdentity {
  name: string;
  email: string;
}

/** Used when no committer is configured and the repository (or the user's git config) names nobody. */
export const DEFAULT_BOT_IDENTITY: GitIdentity = { name: "aider-bot", email: "aider-bot@users.noreply.github.com" };

/** Env that sets a commit's author (git reads these verbatim, so no `Name <email>` parsing can go wrong). */
export function authorEnv(who: GitIdentity): Record<string, string> {
  return { GIT_AUTHOR_NAME: clean(who.name), GIT_AUTHOR_EMAIL: clean(who.email) };
}

/** Env that sets the committer of every commit a command makes (commit, rebase, revert). */
export function committerEnv(who: GitIdentity): Record<string, string> {
  return { GIT_COMMITTER_NAME: clean(who.name), GIT_COMMITTER_EMAIL: clean(who.email) };
}

/**
 * The identity to commit as in `dir`: the configured committer when there is one (the App's bot), else the
 * repository's own `user.name`/`user.email` (the CLI on a user's checkout, as Aider does), else the bot default,
 * so a fresh container without git config can still commit.
 */
export async function resolveIdentity(
  run: GitRun,
  dir: string,
  configured: GitIdentity | undefined,
): Promise<GitIdentity> {
  if (configured) return configured;
  const get = async (key: string) => (await run(dir, ["config", "--get", key], { allowFail: true })).stdout.trim();
  const [name, email] = await Promise.all([get("user.name"), get("user.email")]);
  return { name: name || DEFAULT_BOT_IDENTITY.name, email: email || DEFAULT_BOT_IDENTITY.email };
}

function clean(s: string): string {
  // Angle brackets and newlines would corrupt the ident line git writes.
  return s.replace(/[<>\r\n]/g, "").trim();
}
