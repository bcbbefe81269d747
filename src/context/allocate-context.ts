import type { ContextBudget, SourceKind } from "../config/context-budget.js";
import type { ContextItem, ContextSource } from "./types.js";

/** How an item went in: whole, shortened (head kept), or to be (or already) summarised by the weak model. */
export type KeptMode = "full" | "truncated" | "summarise" | "summarised";

export interface KeptItem {
  item: ContextItem;
  mode: KeptMode;
  /** Tokens it may take (its own count when full). */
  tokens: number;
  /** Replacement text once summarised. */
  text?: string;
}

export interface SourceAllocation {
  kind: SourceKind;
  /** Tokens this source was given. */
  budget: number;
  kept: KeptItem[];
  cut: ContextItem[];
  /** What was cut, shortened, summarised or could not be read, and where to see it; null when all went in whole. */
  note: string | null;
  seeAlso: string;
}

/** Below this many tokens a shortened item says too little to be worth its place; the item is cut instead. */
export const MIN_PARTIAL_TOKENS = 100;

/**
 * Share one token budget among the context sources (pure). Each source may take up to its cap (`context.<source>`);
 * when the caps together exceed `context.max_tokens`, the total is shared in proportion to the caps, and what a
 * source does not need goes to the others (water-filling). Within a source, items go in whole in their priority
 * order while they fit; then the first item that did not fit is shortened (or marked for summarising) into what is
 * left; the rest is cut. Every source comes back, with a note whenever anything was left out, so nothing is dropped
 * silently.
 * @example allocateContext([{ kind: "diff", items, seeAlso: "the Files tab" }], DEFAULT_CONTEXT_BUDGET)
 */
export function allocateContext(sources: readonly ContextSource[], budget: ContextBudget): SourceAllocation[] {
  const shares = shareBudget(
    sources.map((s) => ({ cap: budget[s.kind], need: s.unavailable ? 0 : s.items.reduce((n, i) => n + i.tokens, 0) })),
    budget.max_tokens,
  );
  return sources.map((source, i) => fillSource(source, shares[i]!, budget[source.kind])); // one share per source
}

/** Water-filling: each gets min(need, cap) when everything fits, else a share of the total weighted by its cap. */
export function shareBudget(wants: readonly { cap: number; need: number }[], total: number): number[] {
  const shares = wants.map((w) => ({ cap: w.cap, demand: Math.max(0, Math.min(w.need, w.cap)), got: 0 }));
  let open = shares.filter((s) => s.demand > 0);
  let left = Math.max(0, total);
  while (open.length > 0 && left > 0) {
    const weight = open.reduce((n, s) => n + s.cap, 0);
    const satisfied = open.filter((s) => s.demand - s.got <= (left * s.cap) / weight);
    if (satisfied.length === 0) {
      // Nobody is satisfied by a proportional share: hand it out (floored, so the total is never exceeded) and stop.
      for (const s of open) s.got += Math.floor((left * s.cap) / weight);
      break;
    }
    for (const s of satisfied) {
      left -= s.demand - s.got;
      s.got = s.demand;
    }
    open = open.filter((s) => !satisfied.includes(s));
  }
  return shares.map((s) => s.got);
}

function fillSource(source: ContextSource, share: number, cap: number): SourceAllocation {
  const base = { kind: source.kind, budget: share, seeAlso: source.seeAlso };
  if (source.unavailable) return { ...base, kept: [], cut: [], note: `Not available: ${source.unavailable}` };
  const kept: KeptItem[] = [];
  const skipped: ContextItem[] = [];
  let left = share;
  for (const item of source.items) {
    if (item.tokens <= left) {
      kept.push({ item, mode: "full", tokens: item.tokens });
      left -= item.tokens;
    } else skipped.push(item);
  }
  const partial = left >= MIN_PARTIAL_TOKENS ? skipped.shift() : undefined;
  if (partial)
    kept.splice(keptIndex(source.items, kept, partial), 0, {
      item: partial,
      mode: partial.summarisable ? "summarise" : "truncated",
      tokens: left,
    });
  return { ...base, kept, cut: skipped, note: describeCuts(source, kept, skipped, cap) };
}

/** Keep the partial item in its priority position among the kept ones. */
function keptIndex(order: readonly ContextItem[], kept: readonly KeptItem[], item: ContextItem): number {
  const at = order.indexOf(item);
  const i = kept.findIndex((k) => order.indexOf(k.item) > at);
  return i < 0 ? kept.length : i;
}

const NAMES: Record<SourceKind, string> = {
  prior_runs: "earlier runs",
  review_threads: "review threads",
  checks: "failing checks",
  conversation: "comments",
  closing_issues: "closing issues",
  diff: "changed files",
};

function describeCuts(
  source: ContextSource,
  kept: readonly KeptItem[],
  cut: readonly ContextItem[],
  cap: number,
): string | null {
  const parts: string[] = [];
  const list = (items: readonly ContextItem[]) => {
    const names = items.slice(0, 5).map((i) => i.label);
    return `${names.join(", ")}${items.length > 5 ? ` and ${items.length - 5} more` : ""}`;
  };
  const shortened = kept.filter((k) => k.mode === "truncated");
  const summarised = kept.filter((k) => k.mode === "summarise" || k.mode === "summarised");
  if (shortened.length) parts.push(`shortened to fit: ${list(shortened.map((k) => k.item))}`);
  if (summarised.length) parts.push(`summarised: ${list(summarised.map((k) => k.item))}`);
  if (cut.length) {
    const why = cap === 0 ? `\`context.${source.kind}: 0\` turns this source off` : "over the context budget";
    parts.push(`${cut.length} of ${source.items.length} ${NAMES[source.kind]} left out (${why}): ${list(cut)}`);
  }
  return parts.length ? `${capitalise(parts.join("; "))}. See ${source.seeAlso}.` : null;
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
