// The layout git needs (subject line, body, trailers last); the wording of each part is coder/commit-policy.ts.

export interface CommitMessageParts {
  subject: string;
  body?: string;
  trailers?: readonly string[];
}

/**
 * The full commit message: one subject line, a blank line, the body, a blank line, the trailers (one per line, so
 * `git interpret-trailers --parse` finds them). A multi-line subject keeps its first line; the rest joins the body.
 * `composeCommitMessage({ subject: "fix: x", trailers: ["Co-authored-by: A <a@x>"] }) → "fix: x\n\nCo-authored-by: A <a@x>\n"`
 */
export function composeCommitMessage(parts: CommitMessageParts): { subject: string; message: string } {
  const [first = "", ...restOfSubject] = parts.subject.replace(/\r\n?/g, "\n").trim().split("\n");
  const subject = first.trim() || "(no commit message provided)";
  const body = [restOfSubject.join("\n").trim(), (parts.body ?? "").replace(/\r\n?/g, "\n").trim()]
    .filter(Boolean)
    .join("\n\n");
  const trailers = (parts.trailers ?? []).map((t) => t.replace(/[\r\n]+/g, " ").trim()).filter(Boolean);
  const paragraphs = [subject, body, trailers.join("\n")].filter(Boolean);
  return { subject, message: `${paragraphs.join("\n\n")}\n` };
}
