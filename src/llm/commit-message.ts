import type { LlmClient } from "./types.js";

const TYPES = ["fix", "feat", "build", "chore", "ci", "docs", "style", "refactor", "perf", "test"] as const;
const MAX_SUBJECT = 72;
// A weak model's window can be small; the start of a diff says enough for one line.
const MAX_DIFF_CHARS = 40_000;
const MAX_CONTEXT_CHARS = 4_000;

const SYSTEM_PROMPT = [
  // e2e tests tell these calls apart from coder calls by the words "commit messages".
  "You write one-line git commit messages. Given a diff and the request behind it, answer with a single subject line.",
  `Form: \`<type>: <description>\`, with <type> one of: ${TYPES.join(", ")}.`,
  "The description says what the change does, in the imperative (\"add\", \"fix\", \"remove\"), lower case, no scope, no final period.",
  `The whole line is at most ${MAX_SUBJECT} characters.`,
  "Answer with that line only: no quotes, no explanation, no code fence.",
].join("\n");

export interface CommitMessageInput {
  /** Usually the weak model. */
  model: string;
  diff: string;
  /** What was asked for (the request, or the conversation so far); may be empty. */
  context: string;
}

/**
 * A one-line Conventional-Commits subject written by the model, or null when the call fails, is cut off, or answers
 * something unusable — the caller then uses a deterministic subject.
 *
 * @example await generateCommitMessage(llm, { model: "gpt-4o-mini", diff, context: "fix the pager" }) // "fix: …"
 */
export async function generateCommitMessage(llm: LlmClient, input: CommitMessageInput): Promise<string | null> {
  const diff = input.diff.length > MAX_DIFF_CHARS ? `${input.diff.slice(0, MAX_DIFF_CHARS)}\n[diff truncated]` : input.diff;
  const context = input.context.trim().slice(0, MAX_CONTEXT_CHARS);
  try {
    // No temperature or max_tokens: reasoning models reject the one and need room beyond the other.
    const result = await llm.complete({
      model: input.model,
      messages: [
        { role: "system", content: SYSTEM_PROMPT },
        { role: "user", content: `${context ? `# Request\n${context}\n\n` : ""}# Diff\n${diff}` },
      ],
    });
    if (result.finishReason === "length") return null;
    return parseCommitSubject(result.text);
  } catch {
    return null;
  }
}

/**
 * The first line of `text` that is a valid subject, unquoted and without a final period, or null. Prose lines
 * ("Here is the message:") and fences are skipped; the type is lower-cased ("Fix:" → "fix:").
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
  if (!(TYPES as readonly string[]).includes(type)) return null;
  const description = m[4]!.trim().replace(/\.$/, "");
  // Too short to say anything, or a template placeholder the model echoed back.
  if (description.length < 3 || /^<.*>$/.test(description)) return null;
  const subject = `${type}${m[2] ?? ""}${m[3] ?? ""}: ${description}`;
  return subject.length <= MAX_SUBJECT ? subject : null;
}
