import type { BotEvent } from "../edge/bot-event.js";
import type { AppServices, HandleResult, TriageIo } from "./triage-services.js";
import { triageCheckSuite } from "./triage-check-suite.js";
import { triageCommand } from "./triage-command.js";

/**
 * Triage of one typed event, in a triage job (after the receiver has answered GitHub): a command (or plan approval,
 * or trigger label) or a completed check suite. Each goes gather → decide (pure) → act.
 */
export function triageEvent(event: BotEvent, io: TriageIo, services: AppServices): Promise<HandleResult> {
  switch (event.kind) {
    case "comment":
    case "comment-edit":
    case "review-comment":
    case "issue-label":
      return triageCommand(event, io, services);
    case "check-suite":
      // A failed check suite on the bot's commit may start an automatic CI fix (ci.autofix).
      return triageCheckSuite(event, io, services);
    default:
      return Promise.resolve({ kind: "ignored", reason: `${event.kind} events are not triaged` });
  }
}
