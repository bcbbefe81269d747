import type { Fence, FormatPrompts } from "../types.js";
import { EDITS_ONLY_TEXT, ASK_FOR_FILES_TEXT, ROLE_TEXT } from "../prompt-text.js";
import { fenceNote, openFence } from "../format-prompts.js";
import { searchReplaceExamples, type PathPlacement } from "./examples.js";

/** The block layout, numbered, for either path placement. */
function blockLayout(fence: Fence, placement: PathPlacement): string {
  const pathLine = "the file's full path relative to the repository root, alone on its line, exactly as shown to you";
  const fenceLine = `the opening fence with the language, e.g. ${openFence(fence, "typescript")}`;
  const first = placement === "before-fence" ? [pathLine, fenceLine] : [fenceLine, pathLine];
  return [
    ...first,
    "the line <<<<<<< SEARCH",
    "the existing lines to find, copied exactly",
    "the line =======",
    "the lines that replace them",
    "the line >>>>>>> REPLACE",
    `the closing fence ${fence[1]}`,
  ]
    .map((line, i) => `${i + 1}. ${line}`)
    .join("\n");
}

/** Rules for SEARCH/REPLACE blocks; the uniqueness rule matters because an ambiguous SEARCH is refused (docs/behaviour.md#ambiguous-matches-are-refused). */
function rules(fence: Fence, placement: PathPlacement): string {
  return `Rules for SEARCH/REPLACE blocks:
${blockLayout(fence, placement)}

- The SEARCH part must match the current file exactly, character for character: same indentation, comments, blank lines and punctuation.
- The SEARCH part must also be UNIQUE in the file. If the lines you want to change appear more than once, include enough surrounding lines to point at exactly one place. A SEARCH that matches several places is rejected.
- Keep blocks small: include only the lines that change plus a few lines of context. Use several blocks for several changes, in file order.
- To create a file, use a block with the new path and an empty SEARCH part.
- To move code, use two blocks: one that deletes it where it was and one that inserts it where it goes.
- To delete code, leave the REPLACE part empty.
- Only edit files whose contents you have been shown, or create new ones.
${fenceNote(fence)}`;
}

/** Prompts for a SEARCH/REPLACE format with the given path placement (shared by `diff` and `diff-fenced`). */
export function searchReplacePrompts(placement: PathPlacement): FormatPrompts {
  return {
    system: (fence) =>
      `${ROLE_TEXT}

Every change to a file goes in a SEARCH/REPLACE block, never as a full listing or a loose snippet.
${EDITS_ONLY_TEXT}
${ASK_FOR_FILES_TEXT}
Each block names one file and replaces one contiguous run of lines in it.${fenceNote(fence)}`,
    examples: (fence) => searchReplaceExamples(fence, placement),
    reminder: (fence) => rules(fence, placement),
  };
}

/** `diff`: the path on the line before the fence. */
export const diffPrompts: FormatPrompts = searchReplacePrompts("before-fence");

/** `diff-fenced`: the path on the first line inside the fence (models such as Gemini prefer it, docs/behaviour.md#diff-fenced). */
export const diffFencedPrompts: FormatPrompts = searchReplacePrompts("inside-fence");
