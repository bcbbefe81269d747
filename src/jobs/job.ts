/** What a queued job asks for (`triage`: a webhook to decide on); lets logs, metrics and shutdown reports say what was cut off without reading `data`. */
export type JobKind = "triage" | "run" | "ask" | "undo" | "plan" | "schedule";

/**
 * A unit of queued work. `id` is the X-GitHub-Delivery header (a redelivered webhook carries the same id and is
 * ignored), `key` is `owner/repo#number` (one job at a time per PR or issue), `data` is everything the injected
 * handler needs to run it.
 */
export interface Job<T> {
  id: string;
  key: string;
  kind?: JobKind;
  data: T;
}

/**
 * The serialisation key of a PR or issue, spelled as the webhook payload spells owner and repo (GitHub sends one
 * canonical spelling, and scheduled jobs build the same string). `jobKey("acme", "web", 3) === "acme/web#3"`
 */
export function jobKey(owner: string, repo: string, number: number): string {
  return `${owner}/${repo}#${number}`;
}
