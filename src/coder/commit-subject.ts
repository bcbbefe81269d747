/** Git's conventional subject width; longer subjects are cut at a word boundary. */
export const MAX_SUBJECT_LENGTH = 72;

type CommitType = "feat" | "fix" | "docs" | "test" | "refactor" | "perf" | "build";

const TYPE_RULES: readonly [CommitType, RegExp][] = [
  ["fix", /^(fix|repair|resolve|correct)\b|\b(bug|crash|crashes|broken|regression|typo)\b/],
  ["docs", /^(document|docs?)\b|\b(readme|documentation|jsdoc|docstrings?)\b/],
  ["test", /^(tests?|(add|write|extend|improve)\s+(more\s+|unit\s+)?tests?)\b/],
  ["refactor", /^(refactor|rename|extract|move|simplify|clean\s*up|reorgani[sz]e|split|inline)\b/],
  ["perf", /^(speed up|optimi[sz]e)\b|\b(performance|faster)\b/],
  ["build", /^(bump|upgrade|update)\s+(the\s+)?(dependenc|deps|package)/],
];

const POLITE_PREFIX = /^(please|pls|kindly|can you|could you|would you|let's|lets)\s+/i;

/** Cut at the last word boundary that fits, without an ellipsis. */
export function truncateSubject(text: string, max = MAX_SUBJECT_LENGTH): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max + 1);
  const space = cut.lastIndexOf(" ");
  return (space > max / 2 ? cut.slice(0, space) : text.slice(0, max)).replace(/[\s,;:.-]+$/, "");
}

/**
 * A deterministic Conventional-Commits subject from the request, used when no model wrote one (A.17).
 * @example commitSubjectFromRequest("Please add retry logic to fetch client.") // "feat: add retry logic to fetch client"
 */
export function commitSubjectFromRequest(request: string): string {
  let text = request.split("\n").find((line) => line.trim() !== "")?.trim() ?? "";
  while (POLITE_PREFIX.test(text)) text = text.replace(POLITE_PREFIX, "");
  text = text.replace(/[.!?]+$/, "").replace(/\s+/g, " ").trim();
  // Lowercase a capitalised first word ("Add" → "add") but keep acronyms and identifiers ("README", "HTTPClient").
  if (/^[A-Z][a-z]/.test(text)) text = text[0].toLowerCase() + text.slice(1);
  if (!text) return "chore: apply requested changes";

  const lower = text.toLowerCase();
  const type = TYPE_RULES.find(([, re]) => re.test(lower))?.[0] ?? "feat";
  const [first, ...rest] = text.split(" ");
  // "fix crash in parser" → "fix: crash in parser", not "fix: fix crash in parser".
  const description = first.toLowerCase() === type && rest.length > 0 ? rest.join(" ") : text;
  return truncateSubject(`${type}: ${description}`);
}

/** Clean a model-written commit message into one subject line (first line, quotes removed, ≤ 72 chars). */
export function normaliseSubject(text: string): string | null {
  const line = text.split("\n").find((l) => l.trim() !== "")?.trim() ?? "";
  const unquoted = line.replace(/^(["'`])(.*)\1$/, "$2").trim();
  return unquoted ? truncateSubject(unquoted) : null;
}
