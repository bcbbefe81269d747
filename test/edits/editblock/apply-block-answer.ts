import { parseAndApplyWith } from "../../../src/edits/apply-parsed.js";
import { diffFencedFormat, editBlockFormat } from "../../../src/edits/editblock/index.js";
import type { FailureReason, Fence } from "../../../src/edits/types.js";

export interface BlockAnswerOptions {
  format?: "diff" | "diff-fenced";
  chatFiles?: string[];
  repoFiles?: string[];
  fence?: Fence;
  protectedPaths?: string[];
  problems?: Record<string, { reason: FailureReason; message: string }>;
  fuzzy?: boolean;
}

/** Test helper: parse + apply a SEARCH/REPLACE answer over in-memory files; returns the files afterwards too. */
export function applyBlocks(answer: string, files: Record<string, string>, opts: BlockAnswerOptions = {}) {
  const snapshot = { files: new Map(Object.entries(files)), problems: new Map(Object.entries(opts.problems ?? {})) };
  const format = opts.format === "diff-fenced" ? diffFencedFormat : editBlockFormat;
  const result = parseAndApplyWith(format, answer, snapshot, {
    fence: opts.fence ?? ["```", "```"],
    chatFiles: opts.chatFiles ?? Object.keys(files),
    repoFiles: opts.repoFiles ?? Object.keys(files),
    ...(opts.protectedPaths ? { protectedPaths: opts.protectedPaths } : {}),
    ...(opts.fuzzy ? { fuzzy: true } : {}),
  });
  const after: Record<string, string> = { ...files };
  for (const [p, c] of result.outcome.changes) {
    if (c === null) delete after[p];
    else after[p] = c;
  }
  const failures = [...result.parse.failures, ...result.outcome.failed];
  return {
    after,
    result,
    failures,
    reasons: failures.map((f) => f.reason),
    rungs: result.outcome.applied.map((a) => a.rung),
  };
}

/** A SEARCH/REPLACE block as models write it (`diff` layout: path, fence, markers). */
export function block(path: string, search: string, replace: string, lang = "python"): string {
  return `${path}\n\`\`\`${lang}\n<<<<<<< SEARCH\n${search}=======\n${replace}>>>>>>> REPLACE\n\`\`\`\n`;
}

/** The same block in the `diff-fenced` layout: fence, path, markers. */
export function fencedBlock(path: string, search: string, replace: string, lang = "python"): string {
  return `\`\`\`${lang}\n${path}\n<<<<<<< SEARCH\n${search}=======\n${replace}>>>>>>> REPLACE\n\`\`\`\n`;
}
