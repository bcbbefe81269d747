import type { LlmClient } from "../llm/types.js";
import { parseCommitSubject, SUBJECT_FORM_RULES } from "./commit-policy.js";

// A weak model's window can be small; the start of a diff says enough for one line.
const MAX_DIFF_CHARS = 40_000;
const MAX_CONTEXT_CHARS = 4_000;

const SYSTEM_PROMPT = [
  // e2e tests tell these calls apart from coder calls by the words "commit messages".
  "You write one-line git commit messages. Given a diff and the request behind it, answer with a single subject line.",
  ...SUBJECT_FORM_RULES,
  "Answer with that line only: no quotes, no explanation, no code fence.",
].join("\n");

export interface CommitMessageInput {
  /** Usually the weak model. */
  model: string;
  diff: string;
  /** What was asked for (the request, or the conversation so far); may be empty. */
  context: string;
  /** Stops the call (a subject asked for while the checks ran, no longer wanted). */
  signal?: AbortSignal;
}

/**
 * A one-line Conventional-Commits subject written by the model, or null when the call fails, is cut off, or answers
 * something unusable — the caller then uses a deterministic subject.
 *
 * @example await generateCommitMessage(llm, { model: "gpt-4o-mini", diff, context: "fix the pager" }) // "fix: …"
 */
export async function generateCommitMessage(llm: LlmClient, input: CommitMessageInput): Promise<string | null> {
  const diff =
    input.diff.length > MAX_DIFF_CHARS ? `${input.diff.slice(0, MAX_DIFF_CHARS)}\n[diff truncated]` : input.diff;
  const context = input.context.trim().slice(0, MAX_CONTEXT_CHARS);
  try {
    // No temperature or max_tokens: reasoning models reject the one and need room beyond the other.
    const result = await llm.complete({
      model: input.model,
      messages: [
        { role: "system", content: SYSTEM_PROMPT },
        { role: "user", content: `${context ? `# Request\n${context}\n\n` : ""}# Diff\n${diff}` },
      ],
      ...(input.signal ? { signal: input.signal } : {}),
    });
    if (result.finishReason === "length") return null;
    return parseCommitSubject(result.text);
  } catch {
    // The subject is optional, so a failure of the call means "use the deterministic subject", as documented above.
    return null;
  }
}
