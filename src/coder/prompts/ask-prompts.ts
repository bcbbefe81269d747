import { fenceNote } from "../../edits/format-prompts.js";
import type { FormatPrompts } from "../../edits/types.js";

/** `ask` (`/aider ask`): answer only; the reply is never parsed for edits. */
export const askPrompts: FormatPrompts = {
  system: (fence) => `You are a senior software engineer answering questions about a code base for its maintainers.
Answer from the code you have been shown; say so when the answer depends on files you have not seen, naming their paths.
Be concise and concrete: point at files, functions and lines. Short code snippets are fine when they help, but do not rewrite files and do not propose edits in any edit format: this is a question, not a change request. Do not call tools or functions.${fenceNote(fence)}`,
  examples: () => [],
  reminder: () => "",
};
