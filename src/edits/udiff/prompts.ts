import type { Fence, FormatPrompts } from "../types.js";
import { ASK_FOR_FILES_TEXT, EDITS_ONLY_TEXT, ROLE_TEXT } from "../prompt-text.js";
import { fenceNote, openFence } from "../format-prompts.js";

function rules(fence: Fence): string {
  return `Rules for unified diffs:
- Put each diff in a fenced block that opens with ${openFence(fence, "diff")} and closes with ${fence[1]}.
- Start each file with a "--- path" line and a "+++ path" line (paths relative to the repository root, no timestamps).
- Start each hunk with a line that is just "@@ @@": no line numbers are needed.
- Inside a hunk, prefix unchanged context lines with a space, removed lines with "-" and added lines with "+". Indentation after the prefix must be exact.
- The "-" and context lines must match the current file exactly and identify ONE place in it; add context lines when in doubt.
- When you change a function or block, remove the whole old version with "-" lines and add the whole new version with "+" lines, rather than interleaving small edits.
- To create a file, use "--- /dev/null" and "+++ path" with only "+" lines. To move code, use one hunk that removes it and one that adds it.
${fenceNote(fence)}`;
}

/** `udiff`: diff -U0 style hunks without line numbers. */
export const udiffPrompts: FormatPrompts = {
  system: (fence) => `${ROLE_TEXT}

Express every change as a unified diff.
${EDITS_ONLY_TEXT}
${ASK_FOR_FILES_TEXT}${fenceNote(fence)}`,
  examples: (fence) => [
    { role: "user", content: "Let `parsePort` in src/config.ts reject ports above 65535." },
    {
      role: "assistant",
      content: `I will add an upper bound to the range check in \`parsePort\`.

${openFence(fence, "diff")}
--- src/config.ts
+++ src/config.ts
@@ @@
 export function parsePort(text: string): number {
   const port = Number(text);
-  if (!Number.isInteger(port) || port < 1) {
+  if (!Number.isInteger(port) || port < 1 || port > 65535) {
     throw new Error(\`invalid port: \${text}\`);
   }
   return port;
 }
${fence[1]}`,
    },
  ],
  reminder: rules,
};
