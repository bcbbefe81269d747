import type { EventAction } from "../decide-command.js";
import type { HandleResult } from "../triage-services.js";
import type { ActDeps, ActOn } from "./act-deps.js";
import { answerUsage } from "./answer-usage.js";
import { cancelRuns } from "./cancel-runs.js";
import { dropPlan } from "./drop-plan.js";
import { enqueueRun } from "./enqueue-run.js";
import { postReply } from "./post-reply.js";
import { replyUnauthorized } from "./reply-unauthorized.js";
import { showChecks } from "./show-checks.js";

type Actionable = Exclude<EventAction, { kind: "ignore" }>;

/** One handler per kind of decision, each in its own file. */
const HANDLERS: { [K in Actionable["kind"]]: ActOn<K> } = {
  "reply-unauthorized": replyUnauthorized,
  reply: postReply,
  "show-checks": showChecks,
  cancel: cancelRuns,
  usage: answerUsage,
  "drop-plan": dropPlan,
  enqueue: enqueueRun,
};

/** Carry out a decision with its kind's handler. */
export function actOnCommand(action: Actionable, ctx: ActDeps): Promise<HandleResult> {
  const handler = HANDLERS[action.kind] as ActOn<Actionable["kind"]>;
  return handler(action as never, ctx);
}
