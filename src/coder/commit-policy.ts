/**
 * Every rule about what a commit made by aider-bot says: the subject (deterministic, or written by a model and
 * checked here), the body and the trailers (docs/behaviour.md#commits). Pure: no I/O. The weak-model call and the
 * job runner take their wording from here, so a change to the policy is a change to this file only; how the parts
 * become one git message is the git layer's (workspace/commit-message.ts).
 */

/** Git's conventional subject width; longer subjects are cut at a word boundary. */
export const MAX_SUBJECT_LENGTH = 72;

/** Conventional-Commits types a model-written subject may use. */
export const COMMIT_TYPES = [
  "fix",
  "feat",
  "build",
  "chore",
  "ci",
  "docs",
  "style",
  "refactor",
  "perf",
  "test",
] as const;

/** How a model must write a subject; the weak-model prompt says exactly this. */
export const SUBJECT_FORM_RULES: readonly string[] = [
  `Form: \`<type>: <description>\`, with <type> one of: ${COMMIT_TYPES.join(", ")}.`,
  'The description says what the change does, in the imperative ("add", "fix", "remove"), lower case, no scope, no final period.',
  `The whole line is at most ${MAX_SUBJECT_LENGTH} characters.`,
];

/** The longest request quoted in a commit body; the rest is cut with an ellipsis. */
const MAX_BODY_REQUEST_CHARS = 2000;

type DeterministicType = "feat" | "fix" | "docs" | "test" | "refactor" | "perf" | "build";

const TYPE_RULES: readonly [DeterministicType, RegExp][] = [
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
 * A deterministic Conventional-Commits subject from the request, used when no model wrote one.
 * @example commitSubjectFromRequest("Please add retry logic to fetch client.") // "feat: add retry logic to fetch client"
 */
export function commitSubjectFromRequest(request: string): string {
  let text =
    request
      .split("\n")
      .find((line) => line.trim() !== "")
      ?.trim() ?? "";
  while (POLITE_PREFIX.test(text)) text = text.replace(POLITE_PREFIX, "");
  text = text
    .replace(/[.!?]+$/, "")
    .replace(/\s+/g, " ")
    .trim();
  // Lowercase a capitalised first word ("Add" → "add") but keep acronyms and identifiers ("README", "HTTPClient").
  if (/^[A-Z][a-z]/.test(text)) text = text.charAt(0).toLowerCase() + text.slice(1);
  if (!text) return "chore: apply requested changes";

  const lower = text.toLowerCase();
  const type = TYPE_RULES.find(([, re]) => re.test(lower))?.[0] ?? "feat";
  const [first = "", ...rest] = text.split(" ");
  // "fix crash in parser" → "fix: crash in parser", not "fix: fix crash in parser".
  const description = first.toLowerCase() === type && rest.length > 0 ? rest.join(" ") : text;
  return truncateSubject(`${type}: ${description}`);
}

/** Clean a model-written commit message into one subject line (first line, quotes removed, ≤ 72 chars). */
export function normaliseSubject(text: string): string | null {
  const line =
    text
      .split("\n")
      .find((l) => l.trim() !== "")
      ?.trim() ?? "";
  const unquoted = line.replace(/^(["'`])(.*)\1$/, "$2").trim();
  return unquoted ? truncateSubject(unquoted) : null;
}

/**
 * The first line of a model's answer that is a valid subject, unquoted and without a final period, or null. Prose
 * lines ("Here is the message:") and fences are skipped; the type is lower-cased ("Fix:" → "fix:").
 */
export function parseCommitSubject(text: string): string | null {
  for (const raw of text.split("\n")) {
    const line = unwrap(raw.trim());
    if (!line || /^(```|~~~)/.test(line)) continue;
    const subject = validSubject(line);
    if (subject) return subject;
  }
  return null;
}

function unwrap(line: string): string {
  return line
    .replace(/^(commit message|subject)\s*:\s*/i, "")
    .replace(/^["'`“”‘’]+|["'`“”‘’]+$/g, "")
    .trim();
}

/** `type: description` or `type(scope)!: description` with a known type, ≤ 72 characters; null otherwise. */
export function validSubject(line: string): string | null {
  const m = /^([A-Za-z]+)(\([\w./-]+\))?(!)?: (\S.*)$/.exec(line.trim());
  if (!m) return null;
  const type = m[1]!.toLowerCase();
  if (!(COMMIT_TYPES as readonly string[]).includes(type)) return null;
  const description = m[4]!.trim().replace(/\.$/, "");
  // Too short to say anything, or a template placeholder the model echoed back.
  if (description.length < 3 || /^<.*>$/.test(description)) return null;
  const subject = `${type}${m[2] ?? ""}${m[3] ?? ""}: ${description}`;
  return subject.length <= MAX_SUBJECT_LENGTH ? subject : null;
}

/** The body of a run's commit: the request that caused it, cut at 2000 characters. */
export function requestedChangeBody(request: string): string {
  const text = request.trim();
  return `Requested change:\n\n${text.length > MAX_BODY_REQUEST_CHARS ? `${text.slice(0, MAX_BODY_REQUEST_CHARS)}…` : text}`;
}

/** Trailer naming the run on every bot commit; `/aider undo` finds the bot's commits by it. */
export const RUN_TRAILER = "Aider-Bot-Run";

/** The trailer crediting the requesting user. */
export function coAuthorTrailer(name: string, email: string): string {
  return `Co-authored-by: ${name} <${email}>`;
}

/** The trailers of a run's commit: the requesting user as co-author first, then the trailers naming the run. */
export function runCommitTrailers(
  coAuthor: { name: string; email: string } | undefined,
  extra: readonly string[] = [],
): string[] {
  return [...(coAuthor ? [coAuthorTrailer(coAuthor.name, coAuthor.email)] : []), ...extra];
}

/**
 * Subject and body of the commit made when the checks still fail but the repository does not require green checks:
 * the subject says so, so nobody merges it believing it passed.
 */
export function checksFailingCommit(request: string, requesterLogin: string): { subject: string; body: string } {
  return {
    subject: `fix: ${request.split("\n")[0]!.slice(0, 60)} (checks failing)`,
    body: `Requested by @${requesterLogin}: ${request}\n\nThe repository's checks still fail on this commit.`,
  };
}
