/** The largest rendering found within the budget. */
export interface FittedMap<T> {
  text: string;
  tokens: number;
  /** The ranked items it shows, in rank order. */
  chosen: T[];
}

/** A rendering and its token count, or null when the rendering is known to be over the budget (not counted). */
export type Measure<T> = (chosen: T[]) => { text: string; tokens: number } | null;

/** After the prefix search, how many more items may be tried one by one to fill the budget. */
const FILL_ATTEMPTS = 64;

/**
 * Choose how many ranked items to render so the map fits `maxTokens`: Aider's binary search over the prefix length
 * (starting at maxTokens/25 items), except that a map over the budget is never taken, and the search stops once a
 * map is within 15 % under the budget. When the next item is too big to fit (a long class header), later, smaller
 * items are tried in rank order to fill the rest. Pure: `render` and `countTokens` are supplied (call
 * `loadTokenizer()` first for real counts). Example:
 * `fitToBudget(ranked, (chosen) => renderMap(chosen, byFile), 1024, countTokens)`.
 */
export function fitToBudget<T>(
  items: readonly T[],
  render: (chosen: T[]) => string,
  maxTokens: number,
  countTokens: (text: string) => number,
): FittedMap<T> {
  return fitMeasured(items, maxTokens, (chosen) => {
    const text = render(chosen);
    return { text, tokens: countTokens(text) };
  });
}

/**
 * {@link fitToBudget} with a measure that may stop early: the search only needs exact counts for renderings within
 * the budget, so `measure` can return null as soon as it knows a rendering is over (e.g. a prefix of 40,000 items
 * when the budget holds 60), which makes the first, large probes of the binary search cheap. Same choices as
 * fitToBudget when `measure` is exact.
 */
export function fitMeasured<T>(items: readonly T[], maxTokens: number, measure: Measure<T>): FittedMap<T> {
  let best: FittedMap<T> = { text: "", tokens: 0, chosen: [] };
  if (maxTokens <= 0 || items.length === 0) return best;
  const goodEnough = (tokens: number): boolean => tokens <= maxTokens && tokens >= 0.85 * maxTokens;
  const attempt = (chosen: T[]): number => {
    const measured = measure(chosen);
    if (!measured) return Infinity;
    if (measured.tokens <= maxTokens && measured.tokens > best.tokens) best = { ...measured, chosen };
    return measured.tokens;
  };
  let lo = 0;
  let hi = items.length;
  let mid = Math.min(Math.floor(maxTokens / 25), items.length);
  let prefix = 0;
  while (lo <= hi) {
    const tokens = attempt(items.slice(0, mid));
    if (goodEnough(tokens)) return best;
    if (tokens <= maxTokens) prefix = Math.max(prefix, mid);
    if (tokens < maxTokens) lo = mid + 1;
    else hi = mid - 1;
    mid = Math.floor((lo + hi) / 2);
  }
  let chosen = items.slice(0, prefix);
  for (let i = prefix + 1; i < items.length && i <= prefix + FILL_ATTEMPTS; i++) {
    const candidate = [...chosen, items[i]];
    const tokens = attempt(candidate);
    if (tokens <= maxTokens) chosen = candidate;
    if (goodEnough(best.tokens)) break;
  }
  return best;
}
