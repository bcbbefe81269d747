/** Split LF text into lines without their newlines; a final newline does not make an extra empty line. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Join lines back into LF text with a final newline (empty array → ""). */
export function joinLines(lines: readonly string[]): string {
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

export const isBlank = (line: string): boolean => line.trim() === "";

/** The line's leading spaces and tabs (the pattern matches every line, possibly empty). */
export const leadingWhitespace = (line: string): string => /^[ \t]*/.exec(line)![0];
