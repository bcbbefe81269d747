import type { AutofixDecision } from "../decide-autofix.js";
import type { HandleResult } from "../triage-services.js";
import type { ActDeps } from "./act-deps.js";

/** One note per pull request when the automatic fixes stop: a redelivery or a later suite edits it. */
export const autofixStopMarker = (pull: number) => `<!-- aider-bot:autofix-stop:${pull} -->`;

/** The automatic fixes reached `ci.max_rounds`: say so once on the pull request instead of running again. */
export async function stopAutofix(
  decision: Extract<AutofixDecision, { kind: "stop" }>,
  roundsDone: number,
  { github, botLogin, log }: ActDeps,
): Promise<HandleResult> {
  const marker = autofixStopMarker(decision.pull);
  const body = `${marker}\n🛑 ${decision.message}`;
  await github.ensureComment({ issueNumber: decision.pull, marker, botLogin, body });
  log.info({ rounds: roundsDone }, "automatic CI fixes stopped");
  return { kind: "replied", reason: "autofix limit reached" };
}
