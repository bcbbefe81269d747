import type { Fence, FormatPrompts } from "../types.js";
import { ASK_FOR_FILES_TEXT, EDITS_ONLY_TEXT, ROLE_TEXT } from "../prompt-text.js";
import { fenceNote, openFence } from "../format-prompts.js";

/** Rules for whole-file listings; elision is refused by the engine (docs/behaviour.md#whole-file-fixes), so the prompt forbids it up front. */
function rules(fence: Fence): string {
  return `Rules for file listings:
1. The file's full path relative to the repository root, alone on its line (no bold, no colon, no heading marks).
2. The opening fence with the language, e.g. ${openFence(fence, "typescript")}
3. The COMPLETE new content of the file, every line of it.
4. The closing fence ${fence[1]}

- Never shorten a listing with comments like "... rest of the file unchanged ..." or "// existing code": such listings are rejected, because they would delete the code you left out.
- List only the files you change; a file you list is replaced entirely by your listing.
- To create a file, list it with its new path.
${fenceNote(fence)}`;
}

/** `whole`: the model returns complete files. */
export const wholePrompts: FormatPrompts = {
  system: (fence) => `${ROLE_TEXT}

To change a file, return its complete updated content as a file listing.
${EDITS_ONLY_TEXT}
${ASK_FOR_FILES_TEXT}${fenceNote(fence)}`,
  examples: (fence) => [
    { role: "user", content: "Make the greeting in src/greet.ts end with an exclamation mark." },
    {
      role: "assistant",
      content: `I will change the template string in \`greet\` to end with "!".

src/greet.ts
${openFence(fence, "typescript")}
export function greet(name: string): string {
  return \`Hello, \${name}!\`;
}
${fence[1]}`,
    },
  ],
  reminder: rules,
};
