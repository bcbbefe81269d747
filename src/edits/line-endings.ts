/**
 * How a file ends its lines, whether it ends with a newline, and whether it starts with a UTF-8 byte-order mark:
 * restored after every edit (docs/behaviour.md#newlines-and-line-endings, Aider #1102; a BOM used to be silently dropped).
 */
export interface TextShape {
  eol: "\n" | "\r\n";
  finalNewline: boolean;
  /** The text starts with U+FEFF (a UTF-8 BOM, as the workspace reads it). */
  bom: boolean;
}

const BOM = "\uFEFF";

/**
 * Detect a text's shape: CRLF when at least half of its line breaks are CRLF; an empty text counts as ending with
 * a newline (so text appended to it ends with one). `detectShape("a\r\nb") → { eol: "\r\n", finalNewline: false, bom: false }`
 */
export function detectShape(text: string): TextShape {
  const finalNewline = text.length === 0 || text.endsWith("\n");
  const bom = text.startsWith(BOM);
  // Without a CR there is no CRLF to count: one scan instead of a call per line.
  if (!text.includes("\r")) return { eol: "\n", finalNewline, bom };
  let lf = 0;
  let crlf = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) {
    lf++;
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
  }
  return { eol: crlf > 0 && crlf * 2 >= lf ? "\r\n" : "\n", finalNewline, bom };
}

/**
 * The text the formats edit: CRLF → LF, and without a leading BOM (the model never sees or writes one; it is put
 * back by {@link restoreShape}). A lone CR is content (e.g. inside a string literal), not a line break, and is kept.
 */
export function toLf(text: string): string {
  const body = text.startsWith(BOM) ? text.slice(1) : text;
  return body.includes("\r") ? body.replace(/\r\n/g, "\n") : body;
}

/**
 * Give LF text back the original shape: the final-newline state, the line ending, then the BOM (a BOM the new
 * text already carries is not doubled). An emptied file stays empty.
 * `restoreShape("a\nb\n", { eol: "\r\n", finalNewline: false, bom: true }) → "\uFEFFa\r\nb"`
 */
export function restoreShape(text: string, shape: TextShape): string {
  if (text === "") return text;
  let out = shape.bom && text.startsWith(BOM) ? text.slice(1) : text;
  if (!shape.finalNewline && out.endsWith("\n")) out = out.slice(0, -1);
  if (shape.finalNewline && !out.endsWith("\n")) out += "\n";
  if (shape.eol === "\r\n") out = out.replace(/\r?\n/g, "\r\n");
  return shape.bom ? BOM + out : out;
}
