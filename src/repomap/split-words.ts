/**
 * Words too common in requests and code to tell files apart ("fix the bug in …"): left out of both the request and
 * the files' words. BM25's idf already discounts common words; this list drops the ones that say nothing at all.
 */
const STOP_WORDS = new Set(
  (
    "a an and are as at be but by do does for from has have if in into is it its not of on or so than that the then " +
    "there these this those to was were when where which while who will with without we you our your they their " +
    "can should would could must may might also only just all any each every no more most some such other own same " +
    "very too again once here what how why now new make made use used using get set add fix feat chore refactor docs " +
    "ci build style perf src lib dist index ts js tsx jsx mjs cjs py"
  ).split(" "),
);

/** Shorter words are noise (single letters, `id`-like fragments match everywhere). */
const MIN_WORD = 2;

/**
 * The words of a text, a path or an identifier, as the lexical ranking compares them: split at anything that is not
 * a letter or digit and at camelCase / PascalCase / letter-digit boundaries (`parseHTTPHeader2` → parse, http,
 * header), lower-cased, stop words and numbers dropped, each reduced by {@link lightStem} (`retries`, `retrying` →
 * `retry`). Repeats are kept (BM25 counts them). Pure and deterministic.
 * Example: `splitWords("fix rate_limit in RateLimiter.ts")` → ["rate", "limit", "rate", "limit"].
 */
export function splitWords(text: string): string[] {
  const out: string[] = [];
  if (/[^\x00-\x7f]/.test(text)) {
    for (const chunk of text.split(/[^\p{L}\p{N}]+/u)) {
      const parts = chunk
        .replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2")
        .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
        .replace(/(\p{L})(\p{N})/gu, "$1 $2")
        .replace(/(\p{N})(\p{L})/gu, "$1 $2");
      for (const part of parts.split(" ")) keep(part.toLowerCase(), out);
    }
    return out;
  }
  // ASCII, the common case, by one scan of character classes: 0 other, 1 lower, 2 upper, 3 digit.
  const cls = (i: number): number => {
    const c = text.charCodeAt(i);
    return c >= 97 && c <= 122 ? 1 : c >= 65 && c <= 90 ? 2 : c >= 48 && c <= 57 ? 3 : 0;
  };
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? cls(i) : 0;
    if (start < 0) {
      if (c !== 0) start = i;
      continue;
    }
    const prev = cls(i - 1);
    // A word ends before: a separator, lower→Upper (parseHeader), UPPER→Upper+lower (HTTPHeader), letter↔digit.
    const boundary =
      c === 0 ||
      (prev === 1 && c === 2) ||
      (prev === 2 && c === 2 && i + 1 < text.length && cls(i + 1) === 1) ||
      (prev === 3) !== (c === 3);
    if (boundary) {
      keep(text.slice(start, i).toLowerCase(), out);
      start = c === 0 ? -1 : i;
    }
  }
  return out;
}

/** Stems of words seen, shared by every call: words recur across names and files. */
const STEMS = new Map<string, string>();
const MAX_STEMS = 100_000;

function keep(word: string, out: string[]): void {
  if (word.length < MIN_WORD || STOP_WORDS.has(word)) return;
  const code = word.charCodeAt(0);
  if (code >= 48 && code <= 57 && /^[0-9]+$/.test(word)) return;
  let stem = STEMS.get(word);
  if (stem === undefined) {
    stem = lightStem(word);
    if (STEMS.size >= MAX_STEMS) STEMS.clear();
    STEMS.set(word, stem);
  }
  out.push(stem);
}

/**
 * A light English stemmer, enough to meet a request's words and code's (`caching`/`cached`/`cache`,
 * `retries`/`retry`, `running`/`run`, `queued`/`queues`/`queue`): plural and -ing/-ed endings cut, then a final e,
 * then a doubled final consonant. Over-stemming is harmless here (both sides are stemmed alike); words of up to
 * three letters are kept as they are. Example: `lightStem("retrying")` → "retry".
 */
export function lightStem(word: string): string {
  let w = word;
  if (w.length <= 3) return w;
  if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("ing") && w.length > 5) w = w.slice(0, -3);
  else if (w.endsWith("ed") && w.length > 4) w = w.slice(0, -2);
  else if (w.endsWith("es") && /(ch|sh|x|ss|zz)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is")) w = w.slice(0, -1);
  if (w.endsWith("e") && w.length > 4) w = w.slice(0, -1);
  if (w.length > 3 && /([b-df-hj-kmnp-rtv-z])\1$/.test(w)) w = w.slice(0, -1);
  return w;
}
