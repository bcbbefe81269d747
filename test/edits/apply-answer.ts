import { parseAndApply } from "../../src/edits/registry.js";
import type { EditFormatName, Fence } from "../../src/edits/types.js";

/** Test helper: parse + apply an answer over in-memory files; returns the files afterwards and the result. */
export function applyAnswer(
  format: EditFormatName,
  answer: string,
  files: Record<string, string>,
  opts: { chatFiles?: string[]; fence?: Fence; protectedPaths?: string[]; problems?: Record<string, string> } = {},
) {
  const snapshot = {
    files: new Map(Object.entries(files)),
    problems: new Map(
      Object.entries(opts.problems ?? {}).map(([p, m]) => [p, { reason: "unreadable" as const, message: m }]),
    ),
  };
  const chatFiles = opts.chatFiles ?? Object.keys(files);
  const result = parseAndApply(format, answer, snapshot, {
    fence: opts.fence ?? ["```", "```"],
    chatFiles,
    repoFiles: Object.keys(files),
    protectedPaths: opts.protectedPaths,
  });
  const after: Record<string, string> = { ...files };
  for (const [p, c] of result.outcome.changes) {
    if (c === null) delete after[p];
    else after[p] = c;
  }
  const failures = [...result.parse.failures, ...result.outcome.failed];
  return { after, result, failures, reasons: failures.map((f) => f.reason) };
}

/** A SEARCH/REPLACE block as models write it. */
export function block(path: string, search: string, replace: string, lang = "python"): string {
  return `${path}\n\`\`\`${lang}\n<<<<<<< SEARCH\n${search}=======\n${replace}>>>>>>> REPLACE\n\`\`\`\n`;
}
