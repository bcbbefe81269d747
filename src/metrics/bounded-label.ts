/** The label value used for anything outside a label's bounded set. */
export const OTHER = "other";

/** `value` when it is one of `allowed`, else `other` (pure). `boundedLabel("gpt-4o", ["gpt-4o"]) === "gpt-4o"` */
export function boundedLabel(value: string, allowed: ReadonlySet<string>): string {
  return allowed.has(value) ? value : OTHER;
}

/**
 * A label whose values are learned as they come (installation ids, limit names) but bounded: values must match
 * `shape`, and past `max` distinct values every new one is `other`. Keeps a series count finite whatever arrives.
 */
export function learnedLabel(shape: RegExp, max: number): (value: string) => string {
  const seen = new Set<string>();
  return (value) => {
    if (!shape.test(value)) return OTHER;
    if (seen.has(value)) return value;
    if (seen.size >= max) return OTHER;
    seen.add(value);
    return value;
  };
}
