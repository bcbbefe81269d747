import { ensureComment } from "../../github/ensure-comment.js";
import type { CheckSuiteEvent } from "../../edge/bot-event.js";
import type { AutofixDecision } from "../decide-autofix.js";
import type { HandleResult } from "../event-context.js";
import type { ActContext } from "./act-context.js";

/** One note per pull request when the automatic fixes stop: a redelivery or a later suite edits it. */
export const autofixStopMarker = (pull: number) => `<!-- aider-bot:autofix-stop:${pull} -->`;

/** The automatic fixes reached `ci.max_rounds`: say so once on the pull request instead of running again. */
export async function stopAutofix(
  event: CheckSuiteEvent,
  decision: Extract<AutofixDecision, { kind: "stop" }>,
  roundsDone: number,
  { api, botLogin, log }: ActContext,
): Promise<HandleResult> {
  const { owner, name: repo } = event.repository;
  const marker = autofixStopMarker(decision.pull);
  const body = `${marker}\n🛑 ${decision.message}`;
  await ensureComment(api, { owner, repo, issueNumber: decision.pull, marker, botLogin, body });
  log.info({ rounds: roundsDone }, "automatic CI fixes stopped");
  return { kind: "replied", reason: "autofix limit reached" };
}
