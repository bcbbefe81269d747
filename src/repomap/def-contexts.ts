import type { Node, Tree } from "web-tree-sitter";
import { defContextRows, HEADER_MAX } from "./def-context.js";

/** What {@link defContextRows} needs from one node on a definition's ancestor chain. */
interface ChainNode {
  node: Node;
  /** Position among its parent's children (-1 for the root). */
  childIndex: number;
  startIndex: number;
  endIndex: number;
  row: number;
  endRow: number;
  /** Its multi-line children that start on `row`: their child index and last row. */
  sameRow: { index: number; endRow: number }[];
}

/** Finds the context rows of many definitions of one tree; see {@link createContextFinder}. */
export interface ContextFinder {
  /** The rows {@link defContextRows} gives for this name node. */
  rowsFor(nameNode: Node): number[];
}

/**
 * Where each line of `text` starts, for {@link createContextFinder}: tree-sitter counts rows by "\n" alone, and
 * web-tree-sitter's indices are offsets in the JavaScript string.
 */
export function lineStarts(text: string): Int32Array {
  let count = 1;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) count++;
  const starts = new Int32Array(count);
  for (let i = text.indexOf("\n"), k = 1; i >= 0; i = text.indexOf("\n", i + 1)) starts[k++] = i + 1;
  return starts;
}

/**
 * The same rows as {@link defContextRows}, for the definitions of one tree, at a fraction of the cost. Every call
 * into tree-sitter costs far more than the work it does, and `Node.parent` walks down from the root each time, so
 * walking up from every definition is the expensive way. Here the current ancestor chain is kept as a stack;
 * definitions come in source order, so the next one is reached by popping to the common ancestor and going down
 * again. Going down costs one call per node entered (its children, with their start offsets and rows, come in one
 * batch) and one for the end offset of the child taken; a node is entered once per file. Rows come from the line
 * table `starts` (see {@link lineStarts}) rather than from position objects. Where a node cannot be reached this
 * way (zero-width nodes of error recovery), the per-node walk is used instead.
 */
export function createContextFinder(tree: Tree, starts: Int32Array): ContextFinder {
  const stack: ChainNode[] = [chainNode(tree.rootNode, -1, tree.rootNode.endIndex, starts)];
  const contains = (n: ChainNode, start: number, end: number): boolean => n.startIndex <= start && end <= n.endIndex;
  // The root is never popped (see the `stack.length === 1` stop below), so the stack always has a top.
  const stackTop = (): ChainNode => stack[stack.length - 1]!;
  const reach = (target: Node, start: number, end: number): boolean => {
    while (!contains(stackTop(), start, end)) {
      if (stack.length === 1) return false;
      stack.pop();
    }
    for (let top = stackTop(); top.node.id !== target.id; top = stackTop()) {
      const children = top.node.children;
      // The last child starting at or before `start`; earlier ones too when it does not hold the target (a
      // zero-width node sharing the offset).
      let i = lastStartingBy(children, start);
      let taken: Node | undefined;
      let endIndex = -1;
      for (; i >= 0; i--) {
        const child = children[i];
        if (!child) continue;
        endIndex = child.endIndex;
        if (end <= endIndex) {
          taken = child;
          break;
        }
      }
      if (!taken || endIndex <= taken.startIndex) return false;
      stack.push(chainNode(taken, i, endIndex, starts));
    }
    return true;
  };
  return {
    rowsFor(nameNode) {
      const start = nameNode.startIndex;
      const end = nameNode.endIndex;
      if (end <= start || !reach(nameNode, start, end)) {
        stack.length = 1;
        return defContextRows(nameNode);
      }
      return rowsFromChain(stack, nameNode.startPosition.row);
    },
  };
}

/** Index of the last of `children` (in source order) that starts at or before `index`, or -1. */
function lastStartingBy(children: (Node | null)[], index: number): number {
  let lo = 0;
  let hi = children.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((children[mid] as Node).startIndex <= index) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** The row holding string offset `index`: the last line start at or before it. */
function rowAt(starts: Int32Array, index: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= index)
      lo = mid; // lo < mid <= hi < starts.length
    else hi = mid - 1;
  }
  return lo;
}

/**
 * A chain node with its multi-line children on its own row. A single-line node has none, and row 0 is never a
 * scope header: neither needs its children. Rows are those of tree-sitter's positions (an end offset right after
 * a newline is on the next row).
 */
function chainNode(node: Node, childIndex: number, endIndex: number, starts: Int32Array): ChainNode {
  const row = node.startPosition.row;
  const endRow = rowAt(starts, endIndex);
  const chain: ChainNode = { node, childIndex, startIndex: node.startIndex, endIndex, row, endRow, sameRow: [] };
  if (row !== 0 && endRow > row) {
    const children = node.children;
    for (let i = 0; i < children.length; i++) {
      const child = children[i] as Node;
      if (child.startPosition.row !== row) break;
      const end = rowAt(starts, child.endIndex);
      if (end > row) chain.sameRow.push({ index: i, endRow: end });
    }
  }
  return chain;
}

/**
 * The rows for the definition at the top of `chain`, by {@link defContextRows}' rule: per start row of the chain
 * (row 0 excepted), the multi-line nodes starting there are the chain's nodes and their same-row children, each
 * counted once (a chain node is also its parent's child); with two or more, the smallest gives the header.
 */
function rowsFromChain(chain: ChainNode[], line: number): number[] {
  const rows: number[] = [line];
  let i = chain.length - 1;
  for (let head = chain[i]; head && head.row !== 0; head = chain[i]) {
    const row = head.row;
    let count = 0;
    let minEnd = Infinity;
    for (let n = chain[i]; n && n.row === row; n = chain[--i]) {
      if (n.endRow > row) {
        count++;
        if (n.endRow < minEnd) minEnd = n.endRow;
      }
      const onChain = chain[i + 1]?.childIndex ?? -1;
      for (const c of n.sameRow) {
        if (c.index === onChain) continue;
        count++;
        if (c.endRow < minEnd) minEnd = c.endRow;
      }
    }
    // All the nodes start on `row`, so the smallest is the one ending first.
    const end = count < 2 ? row + 1 : Math.min(minEnd, row + HEADER_MAX);
    for (let r = row; r < end; r++) rows.push(r);
  }
  rows.sort((a, b) => a - b);
  return rows.filter((r, k) => k === 0 || r !== rows[k - 1]);
}
