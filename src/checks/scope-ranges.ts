import type { Node } from "web-tree-sitter";

/** Row ranges of multi-line named nodes (functions, classes, blocks…): the scopes a code context can show. */
export function scopeRanges(root: Node, maxScopes = 5000): [number, number][] {
  const out: [number, number][] = [];
  const stack: Node[] = [root];
  while (stack.length && out.length < maxScopes) {
    const node = stack.pop()!;
    const start = node.startPosition.row;
    const end = node.endPosition.row;
    if (end > start && node.isNamed && node !== root) out.push([start, end]);
    if (end > start) for (const child of node.namedChildren) if (child) stack.push(child);
  }
  return out;
}
