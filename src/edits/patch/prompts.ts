import type { Fence, FormatPrompts } from "../types.js";
import { ASK_FOR_FILES_TEXT, EDITS_ONLY_TEXT, ROLE_TEXT } from "../prompt-text.js";
import { fenceNote } from "../format-prompts.js";

function rules(fence: Fence): string {
  return `Rules for patches:
- After your explanation, write one patch that starts with the line "*** Begin Patch" and ends with the line "*** End Patch".
- For each changed file, a line "*** Update File: path" (path relative to the repository root), then one or more sections. Each section starts with "@@" (optionally followed by the line of the enclosing function or class), then lines prefixed with a space (unchanged context, about three lines before and after), "-" (removed) or "+" (added).
- Context and "-" lines must match the current file exactly and point at ONE place in it.
- To create a file: "*** Add File: path", then every line of the new file prefixed with "+".
- To delete a file: "*** Delete File: path". To rename while updating: "*** Move to: new/path" right after the Update File line.
${fenceNote(fence)}`;
}

/** `patch`: OpenAI's V4A apply_patch format; only the markers must be exact (docs/behaviour.md#v4a-patches). */
export const patchPrompts: FormatPrompts = {
  system: (fence) => `${ROLE_TEXT}

Express every change in one patch in the V4A format.
${EDITS_ONLY_TEXT}
${ASK_FOR_FILES_TEXT}${fenceNote(fence)}`,
  examples: () => [
    { role: "user", content: "Log a warning in src/cache.ts when an entry is evicted, and add a CHANGELOG note." },
    {
      role: "assistant",
      content: `I will log in \`evict\` and start a changelog file.

*** Begin Patch
*** Update File: src/cache.ts
@@ export class Cache {
   private evict(key: string): void {
     this.entries.delete(key);
+    this.logger.warn(\`evicted \${key}\`);
   }
*** Add File: CHANGELOG.md
+# Changelog
+
+- Cache evictions are now logged.
*** End Patch`,
    },
  ],
  reminder: rules,
};
