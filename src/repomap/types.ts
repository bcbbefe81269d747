/** One definition or reference of a name in a file. `line` is 0-based. */
export interface Tag {
  relPath: string;
  name: string;
  kind: "def" | "ref";
  line: number;
}

/**
 * Everything the map needs from one file, computed once per content and cached: its tags plus just enough of the
 * file (the rows a definition's context may show, and their neighbours) to render it without re-reading or
 * re-parsing. This keeps ranking and rendering pure.
 */
export interface FileTags {
  relPath: string;
  tags: Tag[];
  /** For a definition on row r: the rows to show (its header and the headers of the scopes enclosing it). */
  contexts: Record<number, number[]>;
  /** Text (cut to 100 characters) of every row a context may show, and of the rows next to those. */
  rows: Record<number, string>;
  lineCount: number;
}

/** One entry of the ranked list: a file's definition of `name`, or just the file (`name` absent). */
export interface RankedEntry {
  relPath: string;
  name?: string;
  /** 0-based row of that definition (a name defined on several rows gives several entries). */
  line?: number;
}

/**
 * A ranked list read by prefix. An array is one; the ranking's own list orders and builds entries only as far as
 * it is read, since a map shows a few hundred of tens of thousands of ranked definitions.
 */
export interface RankedSource {
  readonly length: number;
  /** Entries [start, end) — end clamped to the length, as `Array.prototype.slice` does. */
  slice(start: number, end: number): RankedEntry[];
}
