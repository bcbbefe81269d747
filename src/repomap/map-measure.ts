import type { Measured, Measurer } from "./fit-to-budget.js";
import { cutLines, renderFile, renderMap } from "./render-map.js";
import type { FileTags, RankedEntry, RankedSource } from "./types.js";

/** What the measure needs of the tags: presence is cheap, the rendering detail may be decoded on demand. */
export interface TagsLookup {
  has(relPath: string): boolean;
  get(relPath: string): FileTags;
}

/** Entries indexed at least this many at a time. */
const INDEX_CHUNK = 512;

/**
 * A {@link Measurer} for {@link renderMap} over prefixes of `ranked`, for `fitMeasured`: the same text and count as
 * `countTokens(renderMap(chosen, tags, chat))`, but built file block by file block, each block rendered and counted
 * once per set of rows, and given up (null) as soon as the blocks so far exceed `maxTokens`. So a probe of 40,000
 * entries costs about as much as one of the budget's size, and files beyond the budget are never decoded.
 *
 * The ranked list is read (and indexed) only as far as probes need: a prefix longer than what is indexed is over
 * the budget when the indexed part already is (adding entries only adds rows and files), so it is answered without
 * reading further.
 *
 * Counting block by block is exact because the tokenizer's pre-split (o200k, like cl100k) never joins a newline
 * with a following character that is neither whitespace nor `/`: a map's token count is the sum of its blocks'
 * when every block starts with such a character (a path). Paths that do not are measured whole.
 * Chosen lists that are not prefixes of `ranked` (the fill step's) are rendered whole.
 */
export function createMapMeasure(
  ranked: RankedSource,
  tags: TagsLookup,
  chat: ReadonlySet<string>,
  maxTokens: number,
  countTokens: (text: string) => number,
): Measurer<RankedEntry> {
  const index = createIndex(tags, chat);
  const blocks = new Map<string, { text: string; tokens?: number; tokensNl?: number }>();
  const lineTokens = new Map<string, number>();
  const whole = (chosen: RankedEntry[]): Measured => {
    const text = renderMap(chosen, mapOf(chosen, tags), chat);
    return { text, tokens: countTokens(text) };
  };
  const blockwise = (m: number): Measured | null => {
    if (!index.safe) return whole(ranked.slice(0, m));
    const defFiles = index.defFiles.filter((f) => f.first < m);
    // A file listed by name only is left out when the prefix also holds one of its definitions.
    const names = index.nameFiles.filter((f) => f.first < m && !((index.defFirst.get(f.relPath) ?? m) < m));
    const texts: string[] = [];
    let tokens = 0;
    for (const [i, f] of defFiles.entries()) {
      let count = 0;
      while (count < f.positions.length && f.positions[count]! < m) count++; // count < length: in bounds
      const key = `${f.relPath}\0${count}`;
      let block = blocks.get(key);
      if (!block) {
        const text = cutLines(`${f.relPath}:\n${renderFile(tags.get(f.relPath), new Set(f.lines.slice(0, count)))}`);
        blocks.set(key, (block = { text }));
      }
      // The last block has no "\n" after it.
      if (i === defFiles.length - 1 && names.length === 0) tokens += block.tokens ??= countTokens(block.text);
      else tokens += block.tokensNl ??= countTokens(`${block.text}\n`);
      if (tokens > maxTokens) return null;
      texts.push(block.text);
    }
    const nameLines = names.map((f) => cutLines(`${f.relPath}\n`));
    for (const line of nameLines) {
      let t = lineTokens.get(line);
      if (t === undefined) lineTokens.set(line, (t = countTokens(line)));
      tokens += t;
      if (tokens > maxTokens) return null;
    }
    if (nameLines.length > 0) texts.push(nameLines.join(""));
    return { text: texts.join("\n"), tokens };
  };
  return {
    prefix(count) {
      const m = Math.min(count, ranked.length);
      while (index.size < m) {
        const sofar = index.size > 0 ? blockwise(index.size) : undefined;
        if (sofar === null || (sofar && sofar.tokens > maxTokens)) return null;
        index.add(ranked.slice(index.size, Math.min(m, Math.max(2 * index.size, INDEX_CHUNK))));
      }
      return blockwise(m);
    },
    list: whole,
  };
}

interface IndexedFile {
  relPath: string;
  /** Position of its first entry in the ranked list. */
  first: number;
  /** Positions of its definition entries, ascending, and their rows. */
  positions: number[];
  lines: number[];
}

/** Per file, where its entries sit in the ranked list, split as renderMap splits them; grown as entries are read. */
function createIndex(tags: TagsLookup, chat: ReadonlySet<string>) {
  const defs = new Map<string, IndexedFile>();
  const names = new Map<string, IndexedFile>();
  const index = {
    size: 0,
    defFiles: [] as IndexedFile[],
    nameFiles: [] as IndexedFile[],
    defFirst: new Map<string, number>(),
    safe: true,
    add(entries: readonly RankedEntry[]) {
      for (const e of entries) {
        const i = index.size++;
        if (chat.has(e.relPath)) continue;
        const isDef = e.line !== undefined && tags.has(e.relPath);
        const into = isDef ? defs : names;
        let f = into.get(e.relPath);
        if (!f) {
          into.set(e.relPath, (f = { relPath: e.relPath, first: i, positions: [], lines: [] }));
          (isDef ? index.defFiles : index.nameFiles).push(f);
          if (isDef) index.defFirst.set(e.relPath, i);
          if (!/^[^\s/]/.test(e.relPath)) index.safe = false;
        }
        if (isDef) {
          f.positions.push(i);
          f.lines.push(e.line as number);
        }
      }
    },
  };
  return index;
}
function mapOf(chosen: readonly RankedEntry[], tags: TagsLookup): Map<string, FileTags> {
  const out = new Map<string, FileTags>();
  for (const e of chosen)
    if (e.line !== undefined && !out.has(e.relPath) && tags.has(e.relPath)) out.set(e.relPath, tags.get(e.relPath));
  return out;
}
