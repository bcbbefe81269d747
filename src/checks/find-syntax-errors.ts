import type { Node } from "web-tree-sitter";

export interface SyntaxProblem {
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  message: string;
}

const OPENERS: Record<string, string> = { "(": ")", "[": "]", "{": "}" };
const CLOSERS = new Set(Object.values(OPENERS));

/**
 * Walk a tree for ERROR and MISSING nodes, descending only into subtrees that contain errors, and describe each in
 * a few words ("missing `)` after `a: number`", "unexpected `}`", "`(` is never closed"). Aider only marks the lines
 * and sends no description (docs/behaviour.md#aider-bugs-we-avoid (#14)); the model fixes the right thing faster when told what is wrong.
 * At most `limit` problems, at most one per line, in source order.
 */
export function findSyntaxErrors(root: Node, limit = 10): SyntaxProblem[] {
  const out: SyntaxProblem[] = [];
  const lines = new Set<number>();
  const add = (node: Node, message: string) => {
    const line = node.startPosition.row + 1;
    if (lines.has(line) || out.length >= limit) return;
    lines.add(line);
    out.push({ line, column: node.startPosition.column + 1, message });
  };
  const visit = (node: Node) => {
    if (out.length >= limit) return;
    if (node.isMissing) return add(node, describeMissing(node));
    if (node.isError) return describeError(node, add);
    if (!node.hasError) return;
    for (const child of node.children) if (child) visit(child);
  };
  visit(root);
  return out.sort((a, b) => a.line - b.line || a.column - b.column);
}

function describeMissing(node: Node): string {
  const what = node.isNamed ? node.type.replace(/_/g, " ") : `\`${node.type}\``;
  const before = previousLeaf(node);
  const after = before ? lastLine(before.text) : "";
  return after ? `missing ${what} after \`${after}\`` : `missing ${what}`;
}

/** An ERROR node is text the grammar could not place; bracket balance inside it is the most common story. */
function describeError(node: Node, add: (node: Node, message: string) => void): void {
  const leaves = leavesOf(node, 500);
  const open: Node[] = [];
  for (const leaf of leaves) {
    if (leaf.type in OPENERS) open.push(leaf);
    else if (CLOSERS.has(leaf.type)) {
      const top = open[open.length - 1];
      if (top && OPENERS[top.type] === leaf.type) open.pop();
      else return add(leaf, `unexpected \`${leaf.type}\``);
    }
  }
  const [unclosed] = open;
  if (unclosed) return add(unclosed, `\`${unclosed.type}\` is never closed`);
  const text = firstLine(node.text);
  if (leaves.length === 1 && text) return add(node, `unexpected \`${text}\``);
  add(node, text ? `cannot parse \`${text}\`` : "syntax error");
}

function leavesOf(node: Node, max: number): Node[] {
  const out: Node[] = [];
  const walk = (n: Node) => {
    if (out.length >= max) return;
    if (n.childCount === 0) {
      if (!n.isMissing) out.push(n);
      return;
    }
    for (const child of n.children) if (child) walk(child);
  };
  walk(node);
  return out;
}

function previousLeaf(node: Node): Node | null {
  let cur: Node | null = node;
  while (cur && !cur.previousSibling) cur = cur.parent;
  let leaf = cur?.previousSibling ?? null;
  while (leaf && leaf.childCount > 0) leaf = leaf.lastChild;
  // A statement's last token is often what precedes the gap, but showing the whole last line reads better.
  return leaf &&
    leaf.parent &&
    leaf.parent.startPosition.row === leaf.startPosition.row &&
    leaf.parent.text.length <= 40
    ? leaf.parent
    : leaf;
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0]!.trim(); // split always gives a first part
  return line.length > 40 ? `${line.slice(0, 40)}…` : line;
}

function lastLine(text: string): string {
  const lines = text.trim().split("\n");
  const line = lines[lines.length - 1]!.trim(); // split always gives at least one part
  return line.length > 30 ? `…${line.slice(-30)}` : line;
}
