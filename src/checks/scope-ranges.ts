import type { Node } from "web-tree-sitter";

/**
 * A block of code that can enclose a line of interest: rows `start`..`end` (0-based, inclusive), and its header
 * rows `start`..`headerEnd` — the lines a reader needs to know where they are (a signature that may span lines).
 */
export interface ScopeRange {
  start: number;
  end: number;
  headerEnd: number;
}

/** Most grammars put a function's, class's or loop's block under the field `body`; its start ends the header. */
const HEADER_MAX_ROWS = 10;

/**
 * Every multi-line named node below the root is a scope, as in grep-ast's TreeContext (docs/behaviour.md#failed-checks). Unlike
 * TreeContext, a multi-line signature is kept whole as the header (up to the row where the body opens), so a
 * marked line inside a function shows the full parameter list it belongs to. With `lines` (1-based), only scopes
 * enclosing one of them are collected, which skips most of a large tree.
 */
export function scopeRanges(root: Node, lines?: Iterable<number>, maxScopes = 20_000): ScopeRange[] {
  const rows = lines ? [...lines].map((l) => l - 1) : null;
  const out: ScopeRange[] = [];
  const stack: Node[] = [...root.namedChildren.filter((c): c is Node => c !== null)];
  while (stack.length > 0 && out.length < maxScopes) {
    const node = stack.pop()!;
    const start = node.startPosition.row;
    const end = node.endPosition.row;
    if (end <= start) continue; // single-line nodes neither enclose other lines nor contain scopes
    if (rows && !rows.some((r) => start <= r && r <= end)) continue;
    out.push({ start, end, headerEnd: headerEnd(node, start) });
    for (const child of node.namedChildren) if (child) stack.push(child);
  }
  return out.sort((a, b) => a.start - b.start || b.end - a.end);
}

function headerEnd(node: Node, start: number): number {
  const body = node.childForFieldName("body");
  if (!body || body.startPosition.row <= start) return start;
  // `{` on the body's first row belongs to the header line (C-like); a Python block starts on the next line.
  const row = body.text.startsWith("{") ? body.startPosition.row : body.startPosition.row - 1;
  return Math.min(row, start + HEADER_MAX_ROWS - 1);
}
