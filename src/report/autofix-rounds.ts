/**
 * Automatic CI-fix rounds are counted from GitHub itself (state lives in GitHub, no database): each automatic run's
 * status comment carries this marker. Only the bot's own comments count, so nobody can exhaust or reset the limit by
 * pasting markers.
 */
export const autofixMarker = (round: number, sha: string) =>
  `<!-- aider-bot:autofix:${round}:${sha.replace(/[^0-9a-f]/gi, "").slice(0, 40)} -->`;

const AUTOFIX_RE = /<!-- aider-bot:autofix:(\d+):([0-9a-f]*) -->/i;

/** How many automatic fixes already ran on this PR, and whether one already ran for `sha` (a redelivered event). */
export function countAutofixRounds(
  comments: readonly { author: string; body: string }[],
  botLogin: string,
  sha?: string,
): { rounds: number; alreadyForSha: boolean } {
  const mine = comments
    .filter((c) => c.author.toLowerCase() === botLogin.toLowerCase())
    .map((c) => AUTOFIX_RE.exec(c.body))
    .filter((m) => m !== null);
  return {
    rounds: mine.length,
    alreadyForSha: sha !== undefined && mine.some((m) => m[2]!.toLowerCase() === sha.toLowerCase()),
  };
}
