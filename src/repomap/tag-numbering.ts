/** Tags numbered for the ranking graph (see tag-graph.ts): files and names by first appearance, as plain columns. */
import type { Tag } from "./types.js";

/** One file's tags as columns: `name[i]` indexes `names`, which lists the file's names in order of first use. */
export interface TagColumns {
  names: readonly string[];
  name: ArrayLike<number>;
  line: ArrayLike<number>;
  /** 1 for a definition, 0 for a reference. */
  def: ArrayLike<number>;
}

/** Tags numbered: files and names by first appearance, each tag as (file, name, row, is-definition). */
export interface Numbered {
  files: string[];
  names: string[];
  file: Int32Array;
  name: Int32Array;
  line: Int32Array;
  def: Uint8Array;
}

/** Files and names numbered by first appearance. */
export function numberTags(tags: readonly Tag[]): Numbered {
  const files: string[] = [];
  const fileOf = new Map<string, number>();
  const names: string[] = [];
  const nameOf = new Map<string, number>();
  const file = new Int32Array(tags.length);
  const name = new Int32Array(tags.length);
  const line = new Int32Array(tags.length);
  const def = new Uint8Array(tags.length);
  let lastPath: string | null = null;
  let lastFile = -1;
  tags.forEach((tag, i) => {
    if (tag.relPath !== lastPath) {
      lastPath = tag.relPath;
      const f = fileOf.get(tag.relPath);
      lastFile = f ?? (fileOf.set(tag.relPath, files.length), files.push(tag.relPath) - 1);
    }
    file[i] = lastFile;
    let n = nameOf.get(tag.name);
    if (n === undefined) nameOf.set(tag.name, (n = names.push(tag.name) - 1));
    name[i] = n;
    line[i] = tag.line;
    def[i] = tag.kind === "def" ? 1 : 0;
  });
  return { files, names, file, name, line, def };
}

/**
 * {@link numberTags} for files given as columns: a name is looked up once per file that uses it. Each file lists
 * its names in order of first use, so numbering them in that order, file by file, numbers them as the tags would.
 * A file without tags is not numbered (as with tags, where it does not appear).
 */
export function numberColumns(input: readonly { relPath: string; columns: TagColumns }[]): Numbered {
  let total = 0;
  for (const f of input) total += f.columns.name.length;
  const files: string[] = [];
  const names: string[] = [];
  const nameOf = new Map<string, number>();
  const file = new Int32Array(total);
  const name = new Int32Array(total);
  const line = new Int32Array(total);
  const def = new Uint8Array(total);
  let at = 0;
  for (const { relPath, columns: c } of input) {
    const count = c.name.length;
    if (count === 0) continue;
    const f = files.push(relPath) - 1;
    const global = new Int32Array(c.names.length);
    c.names.forEach((n, k) => {
      let id = nameOf.get(n);
      if (id === undefined) nameOf.set(n, (id = names.push(n) - 1));
      global[k] = id;
    });
    // The columns have `count` entries each, and a name index is one of the file's `c.names`.
    for (let i = 0; i < count; i++, at++) {
      file[at] = f;
      name[at] = global[c.name[i]!]!;
      line[at] = c.line[i]!;
      def[at] = c.def[i]!;
    }
  }
  return { files, names, file, name, line, def };
}
