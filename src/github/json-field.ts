/** Whether `value` is a JSON object (not null, not an array), so its fields can be read. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The value at `path` in parsed JSON of unknown shape — an error GitHub answered, a stored marker — or undefined
 * where a step is missing or not an object: `jsonField(error, "response", "headers", "retry-after")`. Callers
 * check the type of what they get. Webhook payloads are never read this way: the edge (src/edge/) types them.
 */
export function jsonField(json: unknown, ...path: string[]): unknown {
  let at = json;
  for (const key of path) {
    if (!isJsonObject(at)) return undefined;
    at = at[key];
  }
  return at;
}
