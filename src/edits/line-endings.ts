/** How a file ends its lines, and whether it ends with a newline: restored after every edit (AIDER.md A.5). */
export interface TextShape {
  eol: "\n" | "\r\n";
  finalNewline: boolean;
}

/** Detect a text's shape: CRLF when most line breaks are CRLF. */
export function detectShape(text: string): TextShape {
  const crlf = (text.match(/\r\n/g) ?? []).length;
  const lf = (text.match(/\n/g) ?? []).length;
  return { eol: crlf > 0 && crlf * 2 >= lf ? "\r\n" : "\n", finalNewline: text.length === 0 || text.endsWith("\n") };
}

/** CRLF (and stray CR) → LF. */
export function toLf(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/** Give LF text back the original shape. An emptied file stays empty. */
export function restoreShape(text: string, shape: TextShape): string {
  if (text === "") return text;
  let out = text;
  if (!shape.finalNewline && out.endsWith("\n")) out = out.slice(0, -1);
  if (shape.finalNewline && !out.endsWith("\n")) out += "\n";
  return shape.eol === "\r\n" ? out.replace(/\n/g, "\r\n") : out;
}
