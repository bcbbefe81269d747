import { createRequire } from "node:module";
import type { WebhookDefinition } from "@octokit/webhooks-examples";
import type { App, InstallationLite, Label, User, WebhookEventMap, WebhookEventName } from "@octokit/webhooks-types";

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

/** A user as a webhook carries one: GitHub's example sender with this login (and the fields given). */
export function exampleUser(login: string, over: Partial<User> = {}): User {
  return { ...examplePayload("issue_comment", "created").sender, login, ...over };
}

/** A label as a webhook carries one: GitHub's example label with this name. */
export function exampleLabel(name: string): Label {
  const label = examplePayload("issues", "labeled").label;
  if (!label) throw new Error("@octokit/webhooks-examples has no issues.labeled payload with a label");
  return { ...label, name };
}

/** A GitHub App as a webhook names one (a comment's `performed_via_github_app`, a check suite's `app`). */
export function exampleApp(id: number, slug: string): App {
  return { ...examplePayload("check_suite", "completed").check_suite.app, id, slug };
}

/** An App's installation as its deliveries name it (a repository webhook's example has none). */
export function exampleInstallation(id: number): InstallationLite {
  return { id, node_id: `MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u${id}` };
}
