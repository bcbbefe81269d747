import type { LlmClient } from "./types.js";

const TYPES = ["fix", "feat", "build", "chore", "ci", "docs", "style", "refactor", "perf", "test"];

const SYSTEM = [
  "You write git commit messages.",
  "Read the diff (and the request that led to it) and reply with ONE line in Conventional Commits form:",
  `\`<type>: <description>\`, where type is one of ${TYPES.join(", ")}.`,
  "Use the imperative mood (\"add\", not \"added\"), no scope, no trailing period, at most 72 characters.",
  "Reply with the commit message only.",
].join("\n");

/**
 * A one-line Conventional-Commits subject from the weak model, or null when the model fails or answers something
 * unusable (the caller then uses a deterministic subject).
 */
export async function generateCommitMessage(llm: LlmClient, req: { model: string; diff: string; context: string }): Promise<string | null> {
  try {
    const result = await llm.complete({
      model: req.model,
      messages: [
        { role: "system", content: SYSTEM },
        { role: "user", content: `${req.context ? `Request:\n${req.context.slice(0, 4000)}\n\n` : ""}# Diff\n${req.diff.slice(0, 60_000)}` },
      ],
      temperature: 0,
    });
    return validSubject(result.text);
  } catch {
    return null;
  }
}

/** The first line, unquoted, if it is a valid Conventional-Commits subject of ≤ 72 characters. */
export function validSubject(text: string): string | null {
  const line = text.trim().split("\n")[0]!.trim().replace(/^["'`]+|["'`]+$/g, "").trim();
  const m = /^([a-z]+)(\([^)]*\))?!?: (.+)$/.exec(line);
  if (!m || !TYPES.includes(m[1]!) || line.length > 72 || m[3]!.trim().length < 3) return null;
  return line.replace(/\.$/, "");
}
