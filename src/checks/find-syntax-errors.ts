import type { Node } from "web-tree-sitter";

export interface SyntaxProblem {
  line: number; // 1-based
  column: number; // 1-based
  message: string;
}

/**
 * Walk a tree for ERROR and MISSING nodes, only descending into subtrees that contain errors, and describe each:
 * "missing `)`", "unexpected `}`". At most `limit` problems.
 */
export function findSyntaxErrors(root: Node, limit = 10): SyntaxProblem[] {
  const out: SyntaxProblem[] = [];
  const visit = (node: Node) => {
    if (out.length >= limit) return;
    if (node.isMissing) {
      out.push({ line: node.startPosition.row + 1, column: node.startPosition.column + 1, message: `missing \`${node.type}\`` });
      return;
    }
    if (node.isError) {
      const text = node.text.trim().split("\n")[0]!.slice(0, 40);
      out.push({ line: node.startPosition.row + 1, column: node.startPosition.column + 1, message: text ? `unexpected \`${text}\`` : "syntax error" });
      return;
    }
    if (!node.hasError) return;
    for (const child of node.children) if (child) visit(child);
  };
  visit(root);
  return out;
}
