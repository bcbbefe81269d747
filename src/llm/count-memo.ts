/**
 * A token counter that remembers the counts of long texts. A run sends the model the same long messages again and
 * again (each request repeats the previous one as its prefix: the system prompt, the map, the files, the earlier
 * turns), and each request's spend estimate counted every one of them from scratch. Counting is a pure function of
 * the text, so a remembered count is the count.
 *
 * Only texts of at least `minChars` are kept (a short text costs less to count than to look up), and at most
 * `maxChars` characters in all: past that the memo starts empty again, so a long-lived process holds no more than
 * that (about twice it in bytes) for it.
 */
export function createCountMemo(
  count: (text: string) => number,
  limits: { minChars: number; maxChars: number },
): (text: string) => number {
  let counts = new Map<string, number>();
  let held = 0;
  return (text) => {
    if (text.length < limits.minChars || text.length > limits.maxChars) return count(text);
    const known = counts.get(text);
    if (known !== undefined) return known;
    const n = count(text);
    if (held + text.length > limits.maxChars) {
      counts = new Map();
      held = 0;
    }
    counts.set(text, n);
    held += text.length;
    return n;
  };
}
