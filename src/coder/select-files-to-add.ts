import type { Workspace } from "../workspace/types.js";

/** At most this many files are added per request for files, so a chatty reply cannot flood the context. */
export const MAX_ADDED_FILES = 8;
/** And at most this many tokens of added file content per request. */
export const MAX_ADDED_TOKENS = 32_000;

export interface SelectFilesInput {
  candidates: readonly string[];
  workspace: Workspace;
  countTokens(text: string): number;
  maxFiles?: number;
  maxTokens?: number;
}

/**
 * Which mentioned files to add to the chat, in mention order, within the file and token caps. Unreadable files
 * (binary, unsafe, missing) and files over the cap are `skipped`, so the caller can stop proposing them.
 */
export async function selectFilesToAdd(input: SelectFilesInput): Promise<{ added: string[]; skipped: string[] }> {
  const maxFiles = input.maxFiles ?? MAX_ADDED_FILES;
  const maxTokens = input.maxTokens ?? MAX_ADDED_TOKENS;
  if (input.candidates.length === 0) return { added: [], skipped: [] };
  const snapshot = await input.workspace.read(input.candidates);
  const added: string[] = [];
  const skipped: string[] = [];
  let tokens = 0;
  for (const path of input.candidates) {
    const content = snapshot.files.get(path);
    const size = content === undefined ? 0 : input.countTokens(content);
    if (
      content === undefined ||
      snapshot.problems?.has(path) ||
      added.length >= maxFiles ||
      tokens + size > maxTokens
    ) {
      skipped.push(path);
      continue;
    }
    tokens += size;
    added.push(path);
  }
  return { added, skipped };
}
