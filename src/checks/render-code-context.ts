/**
 * Show the lines of interest with the headers of their enclosing scopes (like Aider's TreeContext, AIDER.md §4.4):
 * `█` marks a line of interest, `│` prefixes every shown line, `⋮` stands for skipped lines. `scopes` are the
 * [startRow, endRow] ranges (0-based) of blocks that enclose code; a scope's first line is shown as its header
 * when it encloses a line of interest. Lines are cut at 200 characters; at most `maxLines` lines are shown.
 */
export function renderCodeContext(
  content: string,
  linesOfInterest: readonly number[],
  scopes: readonly (readonly [number, number])[] = [],
  options: { around?: number; maxLines?: number } = {},
): string {
  const lines = content.replace(/\n$/, "").split("\n");
  const around = options.around ?? 2;
  const show = new Set<number>();
  const marks = new Set(linesOfInterest.map((l) => l - 1).filter((r) => r >= 0 && r < lines.length));
  for (const r of marks) {
    for (let k = Math.max(0, r - around); k <= Math.min(lines.length - 1, r + around); k++) show.add(k);
    for (const [start, end] of scopes) if (start <= r && r <= end) show.add(start);
  }
  const rows = [...show].sort((a, b) => a - b).slice(0, options.maxLines ?? 60);
  const out: string[] = [];
  let prev = -1;
  for (const r of rows) {
    if (r > prev + 1) out.push("⋮");
    out.push(`${marks.has(r) ? "█" : "│"}${lines[r]!.slice(0, 200)}`);
    prev = r;
  }
  if (prev < lines.length - 1 && rows.length) out.push("⋮");
  return out.join("\n");
}
