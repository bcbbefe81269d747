import type { Node } from "web-tree-sitter";

/** Aider's TreeContext shows at most this many rows of a scope's header. */
export const HEADER_MAX = 10;

/**
 * The rows to show for a definition whose name node is `nameNode`, following Aider's TreeContext rule: the
 * definition's row plus the header of every scope enclosing it (scopes starting on row 0 excepted). A row's header
 * is the row itself unless two or more multi-line nodes start there; then it is the smallest such node, up to
 * {@link HEADER_MAX} rows and without its last row (so a short function shows its body but not its closing brace).
 *
 * Only the name's ancestors, and their children that start on the same row, are examined: that finds the nodes
 * that matter without walking the whole tree, which would cost more than the parse itself. Extraction uses
 * `createContextFinder` (def-contexts.ts), which gives the same rows for a whole file far more cheaply; this
 * per-node version is the rule's reference and its fallback.
 */
export function defContextRows(nameNode: Node): number[] {
  const line = nameNode.startPosition.row;
  // Keyed by node id: a node can be met twice (as an ancestor and as a same-row child of its parent), but distinct
  // nodes with the same span (an export wrapping a class) each count, as in Aider.
  const startsByRow = new Map<number, Map<number, { start: number; end: number }>>();
  const note = (n: Node): void => {
    const start = n.startPosition.row;
    const end = n.endPosition.row;
    if (end <= start) return;
    const byId = startsByRow.get(start) ?? new Map<number, { start: number; end: number }>();
    byId.set(n.id, { start, end });
    startsByRow.set(start, byId);
  };
  const scopeStarts = new Set<number>([line]);
  for (let n: Node | null = nameNode; n; n = n.parent) {
    const row = n.startPosition.row;
    scopeStarts.add(row);
    note(n);
    noteSameRowChildren(n, row, note);
  }
  const shown = new Set<number>([line]);
  for (const s of scopeStarts) {
    if (s === 0) continue;
    for (const r of headerRows(s, [...(startsByRow.get(s)?.values() ?? [])])) shown.add(r);
  }
  return [...shown].sort((a, b) => a - b);
}

function noteSameRowChildren(n: Node, row: number, note: (n: Node) => void): void {
  // Children are in source order: stop at the first one that starts on a later row.
  for (let c = n.firstChild; c && c.startPosition.row === row; c = c.nextSibling) note(c);
}

function headerRows(row: number, multiLine: { start: number; end: number }[]): number[] {
  if (multiLine.length < 2) return [row];
  const [smallest] = [...multiLine].sort((a, b) => a.end - a.start - (b.end - b.start) || a.end - b.end);
  if (!smallest) return [row];
  const end = Math.min(smallest.end, row + HEADER_MAX);
  const rows: number[] = [];
  for (let r = row; r < end; r++) rows.push(r);
  return rows;
}
