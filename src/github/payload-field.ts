/** Whether `value` is a JSON object (not null, not an array), so its fields can be read. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The value at `path` in an unverified webhook payload (or any parsed JSON), or undefined where a step is missing or
 * not an object: `payloadField(payload, "repository", "full_name")`. For the few fields read before an event is known
 * to be of a handled kind (typed per event by `@octokit/webhooks-types` from then on); callers check the type of what
 * they get.
 */
export function payloadField(payload: unknown, ...path: string[]): unknown {
  let at = payload;
  for (const key of path) {
    if (!isJsonObject(at)) return undefined;
    at = at[key];
  }
  return at;
}
