import type { ScopeRange } from "./scope-ranges.js";

export interface CodeContextOptions {
  /** Blocks that can enclose a line (from the tree, else indentation); their headers are shown. */
  scopes?: readonly ScopeRange[];
  /** Rows shown either side of a marked line (Aider uses 3 in lint reports). */
  pad?: number;
  /** At most this many rows are shown; marked lines first, then headers, then the nearest padding. */
  maxLines?: number;
  /** Prefix rows with their 1-based number (Aider does in lint reports: the model reads "line 12" in errors). */
  lineNumbers?: boolean;
  /** Longer lines are cut (minified code would blow the budget). */
  maxLineLength?: number;
}

/**
 * Render the lines of interest with their enclosing scopes' header lines, in the layout of grep-ast's TreeContext
 * as Aider prints it in lint reports (docs/behaviour.md#failed-checks): `█` marks a line of interest, `│` any other shown line, and
 * one `⋮` stands for each run of hidden lines. Gaps of one line are filled, and a blank line after a shown line
 * is shown. `lines` are 1-based.
 *
 * @example renderCodeContext("a\nb\nc\n", [2], { pad: 0, lineNumbers: false }) // "⋮\n█b\n⋮"
 */
export function renderCodeContext(content: string, lines: Iterable<number>, options: CodeContextOptions = {}): string {
  const rows = content.replace(/\r?\n$/, "").split(/\r?\n/);
  const pad = options.pad ?? 3;
  const marks = new Set([...lines].map((l) => l - 1).filter((r) => r >= 0 && r < rows.length));
  if (marks.size === 0) return "";
  const priority = new Map<number, number>(); // lower = kept first when capping
  const want = (row: number, rank: number) => {
    if (row < 0 || row >= rows.length) return;
    priority.set(row, Math.min(priority.get(row) ?? Infinity, rank));
  };
  for (const m of marks) {
    want(m, 0);
    for (let d = 1; d <= pad; d++) {
      want(m - d, 1 + d);
      want(m + d, 1 + d);
    }
    for (const s of options.scopes ?? []) {
      if (s.start > m || m > s.end) continue;
      for (let r = s.start; r <= Math.min(s.headerEnd, s.end); r++) want(r, 1);
    }
  }
  for (const [row, rank] of [...priority]) {
    if (!priority.has(row + 1) && priority.has(row + 2)) want(row + 1, rank + 1); // a one-line gap costs as much as "⋮"
    if (rows[row]!.trim() !== "" && rows[row + 1]?.trim() === "") want(row + 1, rank + 1);
  }
  const maxLines = options.maxLines ?? 80;
  const shown = [...priority]
    .sort((a, b) => a[1] - b[1] || a[0] - b[0])
    .slice(0, maxLines)
    .map(([row]) => row)
    .sort((a, b) => a - b);
  return formatRows(rows, shown, marks, options);
}

function formatRows(
  rows: readonly string[],
  shown: readonly number[],
  marks: ReadonlySet<number>,
  options: CodeContextOptions,
): string {
  const numbers = options.lineNumbers ?? true;
  const width = Math.max(3, String((shown.at(-1) ?? 0) + 1).length);
  const maxLen = options.maxLineLength ?? 200;
  const out: string[] = [];
  let prev = -1;
  for (const row of shown) {
    if (row > prev + 1) out.push("⋮");
    const text = rows[row]!;
    const cut = text.length > maxLen ? `${text.slice(0, maxLen)} …` : text;
    out.push(`${numbers ? String(row + 1).padStart(width) : ""}${marks.has(row) ? "█" : "│"}${cut}`);
    prev = row;
  }
  if (prev < rows.length - 1) out.push("⋮");
  return out.join("\n");
}
