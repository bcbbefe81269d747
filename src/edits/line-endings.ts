/** How a file ends its lines, and whether it ends with a newline: restored after every edit (AIDER.md A.5, #1102). */
export interface TextShape {
  eol: "\n" | "\r\n";
  finalNewline: boolean;
}

/**
 * Detect a text's shape: CRLF when at least half of its line breaks are CRLF; an empty text counts as ending with
 * a newline (so text appended to it ends with one). `detectShape("a\r\nb") → { eol: "\r\n", finalNewline: false }`
 */
export function detectShape(text: string): TextShape {
  let lf = 0;
  let crlf = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) {
    lf++;
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
  }
  return { eol: crlf > 0 && crlf * 2 >= lf ? "\r\n" : "\n", finalNewline: text.length === 0 || text.endsWith("\n") };
}

/** CRLF → LF. A lone CR is content (e.g. inside a string literal), not a line break, and is kept. */
export function toLf(text: string): string {
  return text.replace(/\r\n/g, "\n");
}

/**
 * Give LF text back the original shape: the final-newline state, then the line ending. An emptied file stays empty.
 * `restoreShape("a\nb\n", { eol: "\r\n", finalNewline: false }) → "a\r\nb"`
 */
export function restoreShape(text: string, shape: TextShape): string {
  if (text === "") return text;
  let out = text;
  if (!shape.finalNewline && out.endsWith("\n")) out = out.slice(0, -1);
  if (shape.finalNewline && !out.endsWith("\n")) out += "\n";
  return shape.eol === "\r\n" ? out.replace(/\r?\n/g, "\r\n") : out;
}
