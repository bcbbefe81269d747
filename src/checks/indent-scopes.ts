import type { ScopeRange } from "./scope-ranges.js";

/**
 * Scopes guessed from indentation, for files we cannot parse (or before a grammar is loaded): a line followed by
 * more deeply indented lines opens a scope that lasts until the indentation returns to its level. A closing
 * line at the opener's level that starts with a closing bracket, `end` or `</` is included, as it ends the block.
 */
export function indentScopes(content: string): ScopeRange[] {
  const lines = content.split("\n");
  const out: ScopeRange[] = [];
  const open: { indent: number; start: number }[] = [];
  let lastNonBlank = -1;
  for (const [row, text] of lines.entries()) {
    if (text.trim() === "") continue;
    const indent = indentOf(text);
    for (let scope = open.at(-1); scope && scope.indent >= indent; scope = open.at(-1)) {
      open.pop();
      const closes = scope.indent === indent && /^\s*([)\]}]|end\b|<\/)/.test(text);
      const end = closes ? row : lastNonBlank;
      if (end > scope.start) out.push({ start: scope.start, end, headerEnd: scope.start });
    }
    open.push({ indent, start: row });
    lastNonBlank = row;
  }
  for (const scope of open)
    if (lastNonBlank > scope.start) out.push({ start: scope.start, end: lastNonBlank, headerEnd: scope.start });
  return out.sort((a, b) => a.start - b.start || b.end - a.end);
}

function indentOf(text: string): number {
  let width = 0;
  for (const ch of text) {
    if (ch === " ") width += 1;
    else if (ch === "\t") width += 4;
    else break;
  }
  return width;
}
