import { createRequire } from "node:module";
import type { WebhookDefinition } from "@octokit/webhooks-examples";
import type { WebhookEventMap, WebhookEventName } from "@octokit/webhooks-types";

/** GitHub's own example deliveries (`@octokit/webhooks-examples`), typed by `@octokit/webhooks-types`. */
const EXAMPLES = createRequire(import.meta.url)("@octokit/webhooks-examples") as WebhookDefinition[];

/** The payload type of `event` with `action` (`ExamplePayload<"issue_comment", "created">`). */
export type ExamplePayload<E extends WebhookEventName, A extends string | undefined> = A extends string
  ? Extract<WebhookEventMap[E], { action: A }>
  : WebhookEventMap[E];

/**
 * A deep copy of GitHub's first example delivery of `event` with `action` (no action: the event's first example),
 * for a test to adjust: the one builder of webhook payloads, so a test starts from what GitHub sends, not from a
 * shape written by hand. Throws, naming the pair, when the examples have none.
 */
export function examplePayload<E extends WebhookEventName, A extends string | undefined = undefined>(
  event: E,
  action?: A,
): ExamplePayload<E, A> {
  const group = EXAMPLES.find((e) => e.name === event);
  const found = group?.examples.find((x) => action === undefined || ("action" in x && x.action === action));
  if (!found) throw new Error(`@octokit/webhooks-examples has no ${event}${action ? `.${action}` : ""} payload`);
  return structuredClone(found) as ExamplePayload<E, A>;
}

/**
 * The same example as plain JSON, for a test that rewrites parts of it freely (a trimmed repository, an installation
 * of `{ id }` only, a malformed field the edge must refuse): what goes over the wire is JSON either way.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a payload a test rewrites at will
export function examplePayloadJson(event: WebhookEventName, action?: string): Record<string, any> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  return examplePayload(event, action) as Record<string, any>;
}
