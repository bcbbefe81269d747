import type { KeptItem, SourceAllocation } from "./allocate-context.js";
import type { SourceKind } from "../config/context-budget.js";
import { formatNumber } from "../format-number.js";

const TITLES: Record<SourceKind, string> = {
  prior_runs: "Earlier aider-bot runs on this pull request or issue (oldest first)",
  review_threads: "Review threads",
  checks: "Failing checks of the head commit",
  conversation: "Conversation (newest first)",
  closing_issues: "Issues this pull request closes",
  diff: "Pull request diff against its base",
};

/** The text of a kept item as it goes to the model: whole, summarised, or cut to its share (head or tail kept). */
export function keptText(k: KeptItem): string {
  if (k.mode === "summarised") return `(summary) ${k.text ?? ""}`;
  if (k.mode === "full" || k.item.tokens <= k.tokens) return k.item.text;
  // Characters in proportion to tokens: exact enough for a share, and keeps this pure (no tokenizer).
  const chars = Math.max(0, Math.floor((k.item.text.length * k.tokens) / k.item.tokens) - 40);
  const omitted = k.item.text.length - chars;
  return k.item.keep === "tail"
    ? `[… ${omitted} characters before this cut …]\n${k.item.text.slice(-chars || k.item.text.length)}`
    : `${k.item.text.slice(0, chars)}\n[… ${omitted} more characters cut …]`;
}

/**
 * One untrusted-data block per source (for `buildMessages`' `untrustedContext`), each item under its label, the
 * source's note last. A source with nothing kept still yields its note, so the model knows it exists. Pure.
 */
export function renderContextBlocks(allocations: readonly SourceAllocation[]): { label: string; text: string }[] {
  const out: { label: string; text: string }[] = [];
  for (const a of allocations) {
    if (a.kept.length === 0 && !a.note) continue;
    const body = a.kept.map((k) => `### ${k.item.label}\n${keptText(k)}`).join("\n\n");
    const note = a.note ? `[aider-bot note: ${a.note}]` : "";
    out.push({ label: TITLES[a.kind], text: [body, note].filter(Boolean).join("\n\n") });
  }
  return out;
}

/** A markdown table of the context that went in, for the status comment's details (sources and token counts). */
export function renderContextSummary(allocations: readonly SourceAllocation[]): string {
  const rows = allocations.map((a) => {
    const used = a.kept.reduce((n, k) => n + Math.min(k.tokens, k.item.tokens), 0);
    const total = a.kept.length + a.cut.length;
    const what = a.note?.startsWith("Not available") ? "—" : `${a.kept.length} of ${total}`;
    const note = (a.note ?? "").replace(/\|/g, "\\|").replace(/\n/g, " ");
    return `| ${TITLES[a.kind].replace(/ \(.*\)$/, "")} | ${what} | ${formatNumber(used)} | ${note} |`;
  });
  const sum = allocations.reduce((n, a) => n + a.kept.reduce((m, k) => m + Math.min(k.tokens, k.item.tokens), 0), 0);
  return [
    "| Source | Items | Tokens | Note |",
    "|---|---|---:|---|",
    ...rows,
    `| **Total** | | **${formatNumber(sum)}** | |`,
  ].join("\n");
}

/** The collapsible section of the status comment that lists the context that went in. */
export function renderContextDetails(allocations: readonly SourceAllocation[]): string {
  const total = allocations.reduce((n, a) => n + a.kept.reduce((m, k) => m + Math.min(k.tokens, k.item.tokens), 0), 0);
  return `<details><summary>Context from this pull request (${formatNumber(total)} tokens)</summary>\n\n${renderContextSummary(allocations)}\n\n</details>`;
}
