import { coAuthorTrailer, RUN_TRAILER } from "../../coder/commit-policy.js";

// The trailers' wording is commit policy (coder/commit-policy.ts); this module knows who the run's requester is.
export { RUN_TRAILER } from "../../coder/commit-policy.js";

/** Trailers for a run's commit: the run id, and Co-authored-by the requesting user when known. */
export function runTrailers(jobId: string, requester?: { login: string; id?: number; isBot?: boolean }): string[] {
  const trailers = [`${RUN_TRAILER}: ${jobId}`];
  // A bot (a scheduled run has the app itself as requester) is no co-author; triage says who is one.
  if (requester && !requester.isBot)
    trailers.unshift(coAuthorTrailer(coAuthorName(requester), noreplyEmail(requester)));
  return trailers;
}

/** GitHub's noreply address, which attributes a commit to the user without knowing their email. */
export function noreplyEmail(user: { login: string; id?: number }): string {
  return user.id ? `${user.id}+${user.login}@users.noreply.github.com` : `${user.login}@users.noreply.github.com`;
}

function coAuthorName(user: { login: string }): string {
  return user.login;
}

/** The run id in a commit message, or null when the commit is not the bot's. */
export function runIdFromMessage(message: string): string | null {
  const m = new RegExp(`^${RUN_TRAILER}: (\\S+)\\s*$`, "m").exec(message);
  return m ? m[1]! : null;
}
