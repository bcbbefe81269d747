/** The largest rendering found within the budget. */
export interface FittedMap<T> {
  text: string;
  tokens: number;
  /** The ranked items it shows, in rank order. */
  chosen: T[];
}

/** A rendering and its token count. */
export interface Measured {
  text: string;
  tokens: number;
}

/**
 * Renders and counts for {@link fitMeasured}: a prefix of the ranked items by its length, and any other list whole.
 * Either may return null when the rendering is known to be over the budget (then it need not be counted).
 */
export interface Measurer<T> {
  prefix(count: number): Measured | null;
  list(chosen: T[]): Measured | null;
}

/** What the fitting reads of the ranked items: an array, or a list that is built only as far as it is read. */
export interface ItemList<T> {
  readonly length: number;
  slice(start: number, end: number): T[];
}

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
  const list = (chosen: T[]): Measured => {
    const text = render(chosen);
    return { text, tokens: countTokens(text) };
  };
  return fitMeasured(items, maxTokens, { prefix: (count) => list(items.slice(0, count)), list });
}

/**
 * {@link fitToBudget} with a measurer that may stop early: the search only needs exact counts for renderings within
 * the budget, so a prefix probe can return null as soon as it is known to be over (e.g. a prefix of 40,000 items
 * when the budget holds 60), which makes the first, large probes of the binary search cheap — and lets `items` be
 * a list that is never built that far. Only prefixes within the budget are sliced. Same choices as fitToBudget when
 * the measurer is exact.
 */
export function fitMeasured<T>(items: ItemList<T>, maxTokens: number, measurer: Measurer<T>): FittedMap<T> {
  let best: FittedMap<T> = { text: "", tokens: 0, chosen: [] };
  if (maxTokens <= 0 || items.length === 0) return best;
  const goodEnough = (tokens: number): boolean => tokens <= maxTokens && tokens >= 0.85 * maxTokens;
  const record = (measured: Measured | null, chosen: () => T[]): number => {
    if (!measured) return Infinity;
    if (measured.tokens <= maxTokens && measured.tokens > best.tokens) best = { ...measured, chosen: chosen() };
    return measured.tokens;
  };
  let lo = 0;
  let hi = items.length;
  let mid = Math.min(Math.floor(maxTokens / 25), items.length);
  let prefix = 0;
  while (lo <= hi) {
    const count = mid;
    const tokens = record(measurer.prefix(count), () => items.slice(0, count));
    if (goodEnough(tokens)) return best;
    if (tokens <= maxTokens) prefix = Math.max(prefix, mid);
    if (tokens < maxTokens) lo = mid + 1;
    else hi = mid - 1;
    mid = Math.floor((lo + hi) / 2);
  }
  let chosen = items.slice(0, prefix);
  const extra = items.slice(prefix + 1, prefix + 1 + FILL_ATTEMPTS);
  for (const item of extra) {
    const candidate = [...chosen, item];
    const tokens = record(measurer.list(candidate), () => candidate);
    if (tokens <= maxTokens) chosen = candidate;
    if (goodEnough(best.tokens)) break;
  }
  return best;
}
