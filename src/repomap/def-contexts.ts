import type { Node, Tree, TreeCursor } from "web-tree-sitter";
import { defContextRows, HEADER_MAX } from "./def-context.js";

/** What {@link defContextRows} needs from one node on a definition's ancestor chain. */
interface ChainNode {
  id: number;
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
  /** Free the cursor (WASM memory). */
  dispose(): void;
}

/**
 * The same rows as {@link defContextRows}, for the definitions of one tree, at a fraction of the cost.
 * `Node.parent` and `Node.nextSibling` each walk down from the root inside tree-sitter and allocate a JS node, and
 * walking up from every definition redoes that work for every sibling definition. Here one cursor keeps the
 * current ancestor chain as a stack; definitions come in source order, so the next one is reached by popping to
 * the common ancestor and stepping along its later children. Each chain node's same-row children are scanned once,
 * when it is entered. Where the cursor cannot reach a node (zero-width nodes of error recovery), the per-node
 * walk is used instead.
 */
export function createContextFinder(tree: Tree): ContextFinder {
  const cursor = tree.walk();
  const stack: ChainNode[] = [readNode(cursor, -1)];
  const contains = (n: ChainNode, start: number, end: number): boolean => n.startIndex <= start && end <= n.endIndex;
  // From the cursor's node, the `index`-th child of its parent, along the next siblings to the first that ends after
  // `start`; pushed, and true if it holds [start, end). (`gotoFirstChildForIndex` would do this in one call, but in
  // web-tree-sitter 0.27 it reports failure and stops on the first child.)
  const toChildAt = (start: number, end: number, index: number): boolean => {
    while (cursor.endIndex <= start) {
      if (!cursor.gotoNextSibling()) return false;
      index++;
    }
    const next = readNode(cursor, index);
    stack.push(next);
    return contains(next, start, end);
  };
  const reach = (target: Node, end: number): boolean => {
    const start = target.startIndex;
    for (;;) {
      const top = stack[stack.length - 1];
      if (contains(top, start, end)) break;
      if (stack.length === 1) return false;
      stack.pop();
      if (start >= top.endIndex && contains(stack[stack.length - 1], start, end)) {
        // A later sibling holds the target: step there rather than rescanning the parent's children.
        if (!cursor.gotoNextSibling() || !toChildAt(start, end, top.childIndex + 1)) return false;
        break;
      }
      cursor.gotoParent();
    }
    while (stack[stack.length - 1].id !== target.id) {
      if (!cursor.gotoFirstChild() || !toChildAt(start, end, 0)) return false;
    }
    return true;
  };
  return {
    rowsFor(nameNode) {
      if (nameNode.endIndex <= nameNode.startIndex || !reach(nameNode, nameNode.endIndex)) {
        cursor.reset(tree.rootNode);
        stack.length = 1;
        return defContextRows(nameNode);
      }
      return rowsFromChain(stack, nameNode.startPosition.row);
    },
    dispose() {
      cursor.delete();
    },
  };
}

/**
 * The node under the cursor, with its multi-line children on its own row (the cursor goes down to them and back).
 * A single-line node has no multi-line children, and row 0 is never a scope header: neither needs the scan.
 */
function readNode(cursor: TreeCursor, childIndex: number): ChainNode {
  const row = cursor.startPosition.row;
  const endRow = cursor.endPosition.row;
  const node: ChainNode = {
    id: cursor.nodeId,
    childIndex,
    startIndex: cursor.startIndex,
    endIndex: cursor.endIndex,
    row,
    endRow,
    sameRow: [],
  };
  if (row !== 0 && endRow > row && cursor.gotoFirstChild()) {
    let index = 0;
    do {
      if (cursor.startPosition.row !== row) break;
      const end = cursor.endPosition.row;
      if (end > row) node.sameRow.push({ index, endRow: end });
      index++;
    } while (cursor.gotoNextSibling());
    cursor.gotoParent();
  }
  return node;
}

/**
 * The rows for the definition at the top of `chain`, by {@link defContextRows}' rule: per start row of the chain
 * (row 0 excepted), the multi-line nodes starting there are the chain's nodes and their same-row children, each
 * counted once (a chain node is also its parent's child); with two or more, the smallest gives the header.
 */
function rowsFromChain(chain: ChainNode[], line: number): number[] {
  const rows: number[] = [line];
  let i = chain.length - 1;
  while (i >= 0 && chain[i].row !== 0) {
    const row = chain[i].row;
    let count = 0;
    let minEnd = Infinity;
    const add = (endRow: number): void => {
      count++;
      if (endRow < minEnd) minEnd = endRow;
    };
    for (; i >= 0 && chain[i].row === row; i--) {
      const n = chain[i];
      if (n.endRow > row) add(n.endRow);
      const onChain = i + 1 < chain.length ? chain[i + 1].childIndex : -1;
      for (const c of n.sameRow) if (c.index !== onChain) add(c.endRow);
    }
    // All the nodes start on `row`, so the smallest is the one ending first.
    const end = count < 2 ? row + 1 : Math.min(minEnd, row + HEADER_MAX);
    for (let r = row; r < end; r++) rows.push(r);
  }
  return [...new Set(rows)].sort((a, b) => a - b);
}
