import type { ActionRepository, BotEvent } from "./bot-event.js";
import { MalformedPayload, readPayload, type PayloadReader } from "./payload-reader.js";
import { parseWebhook, type ParsedEvent } from "./parse-webhook.js";
import { readSender } from "./read-event-parts.js";

/**
 * The event file of an Action run (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH) through the same edge as the App's
 * webhooks: the webhook events are parsed as the App parses them (without an installation); `schedule` and
 * `workflow_dispatch`, which only a workflow gets, are read here.
 */
export function parseActionEvent(name: string, payload: unknown, delivery: string): ParsedEvent {
  if (name !== "schedule" && name !== "workflow_dispatch") return parseWebhook(name, payload, delivery, "action");
  try {
    const p = readPayload(payload ?? {});
    return { ok: true, event: name === "schedule" ? schedule(p, delivery) : dispatch(p, delivery) };
  } catch (error) {
    if (!(error instanceof MalformedPayload)) throw error;
    return { ok: false, refused: true, reason: `${name} payload refused: ${error.message}` };
  }
}

function schedule(p: PayloadReader, delivery: string): BotEvent {
  const repository = actionRepository(p);
  return { kind: "schedule", delivery, cron: p.text("schedule"), ...(repository ? { repository } : {}) };
}

function dispatch(p: PayloadReader, delivery: string): BotEvent {
  const repository = actionRepository(p);
  // The form's `message` input, when the workflow declares one (the step's own `message` input wins over it).
  const message = p.has("inputs") ? p.optionalString("inputs.message")?.trim() : undefined;
  return {
    kind: "dispatch",
    delivery,
    ref: p.text("ref"),
    sender: readSender(p),
    ...(message ? { message } : {}),
    ...(repository ? { repository } : {}),
  };
}

/** The clone URL and default branch, when the event file names its repository (else the API is asked). */
function actionRepository(p: PayloadReader): ActionRepository | undefined {
  if (!p.has("repository")) return undefined;
  return { cloneUrl: p.text("repository.clone_url"), defaultBranch: p.text("repository.default_branch") };
}
