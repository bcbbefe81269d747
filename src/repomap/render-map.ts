import type { FileTags, RankedEntry } from "./types.js";

/** Lines of the map are cut to this length, as in Aider: minified or generated code must not eat the budget. */
const MAX_LINE = 100;

/**
 * Render the chosen entries as the map text, pure. Files keep the order in which they first appear in `entries`
 * (best first); each file with definitions is shown as its name, then the definitions' rows and the headers of the
 * scopes around them, `│`-prefixed, with `⋮` for skipped rows (Aider's TreeContext layout). Files chosen without a
 * definition are listed by name at the end. Chat files are never shown.
 * Example: `renderMap([{ relPath: "a.py", name: "f", line: 0 }], tagsByFile)` → "a.py:\n│def f():\n⋮\n".
 */
export function renderMap(
  entries: readonly RankedEntry[],
  tagsByFile: ReadonlyMap<string, FileTags>,
  chatFiles: ReadonlySet<string> = new Set(),
): string {
  const defLines = new Map<string, Set<number>>();
  const nameOnly: string[] = [];
  for (const e of entries) {
    if (chatFiles.has(e.relPath)) continue;
    if (e.line === undefined || !tagsByFile.has(e.relPath)) {
      if (!nameOnly.includes(e.relPath)) nameOnly.push(e.relPath);
      continue;
    }
    const set = defLines.get(e.relPath) ?? new Set<number>();
    set.add(e.line);
    defLines.set(e.relPath, set);
  }
  const blocks: string[] = [];
  for (const [relPath, lines] of defLines) {
    blocks.push(`${relPath}:\n${renderFile(tagsByFile.get(relPath) as FileTags, lines)}`);
  }
  const names = nameOnly.filter((f) => !defLines.has(f));
  if (names.length > 0) blocks.push(names.map((f) => `${f}\n`).join(""));
  if (blocks.length === 0) return "";
  return cutLines(blocks.join("\n"));
}

/** Cut every line of `text` to {@link MAX_LINE} characters. */
export function cutLines(text: string): string {
  return text
    .split("\n")
    .map((l) => (l.length > MAX_LINE ? l.slice(0, MAX_LINE) : l))
    .join("\n");
}

/** One file's rows of interest with their scope headers; `⋮` marks every run of hidden rows. */
export function renderFile(ft: FileTags, lois: ReadonlySet<number>): string {
  const show = new Set<number>();
  for (const line of lois) for (const r of ft.contexts[line] ?? [line]) show.add(r);
  const text = (r: number): string | undefined => ft.rows[r];
  let rows = [...show].sort((a, b) => a - b);
  // As in TreeContext: a gap of a single row is not worth a `⋮`; show the row instead.
  rows.forEach((r, i) => {
    if (rows[i + 1] === r + 2 && text(r + 1) !== undefined) show.add(r + 1);
  });
  // …and a blank row after a shown row is kept, so blocks stay visually separated.
  for (const r of rows) {
    const next = text(r + 1);
    if (text(r)?.trim() && next !== undefined && next.trim() === "" && r + 1 < ft.lineCount) show.add(r + 1);
  }
  rows = [...show].filter((r) => r < ft.lineCount).sort((a, b) => a - b);
  let out = "";
  let prev = -1;
  for (const r of rows) {
    if (r > prev + 1) out += "⋮\n";
    out += `│${text(r) ?? ""}\n`;
    prev = r;
  }
  if (prev < ft.lineCount - 1) out += "⋮\n";
  return out;
}
