import type { Fence } from "../edits/types.js";

export interface FileContent {
  path: string;
  content: string;
}

/**
 * Files as `path`, opening fence, content, closing fence. A newline is always put before the closing fence, so a
 * file without a final newline does not glue its last line to the fence (fixes docs/behaviour.md#aider-bugs-we-avoid (#26)).
 */
export function renderFiles(files: readonly FileContent[], fence: Fence): string {
  return files
    .map((file) => {
      const body = file.content.endsWith("\n") || file.content === "" ? file.content : `${file.content}\n`;
      return `\n${file.path}\n${fence[0]}\n${body}${fence[1]}\n`;
    })
    .join("");
}
