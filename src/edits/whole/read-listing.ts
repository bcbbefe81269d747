import type { Fence } from "../types.js";

/** An opening fence line: a run of ≥3 backticks with an optional info string, or the chat's custom fence (`<source>`). */
export type OpenFence = { kind: "backticks"; ticks: number; info: string } | { kind: "custom"; close: string };

/**
 * Whether a line opens a listing. Any run of three or more backticks counts, whatever fence the prompt asked for,
 * because models often fall back to three backticks when told to use four (Aider #2879).
 */
export function openingFence(line: string, fence: Fence): OpenFence | null {
  const t = line.trim();
  const ticks = /^(`{3,})([^`]*)$/.exec(t);
  if (ticks) return { kind: "backticks", ticks: ticks[1]!.length, info: ticks[2]!.trim() };
  if (!fence[0].startsWith("`") && t.startsWith(fence[0])) return { kind: "custom", close: fence[1] };
  return null;
}

export interface Listing {
  body: string[];
  /** Index of the first line after the closing fence (or `lines.length`). */
  next: number;
  closed: boolean;
}

/**
 * Read a listing's lines from `start` up to its closing fence. Inner fences are tracked (docs/behaviour.md#whole-file-fixes): a fence
 * with an info string (```` ```bash ````) opens an inner block, a bare fence at least as long as the innermost open
 * one closes it, and only a bare fence at least as long as the listing's own, with no inner block open, ends the
 * listing. So a Markdown file with code blocks is not cut at its first inner fence (Aider truncates it there).
 * Limitation: a bare inner opening fence of the same length as the listing's fence is read as the listing's end.
 */
export function readListing(lines: readonly string[], start: number, open: OpenFence): Listing {
  const body: string[] = [];
  const inner: number[] = [];
  for (let j = start; j < lines.length; j++) {
    const line = lines[j]!;
    const t = line.trim();
    if (open.kind === "custom") {
      if (t.startsWith(open.close)) return { body, next: j + 1, closed: true };
      body.push(line);
      continue;
    }
    const fence = /^(`{3,})(.*)$/.exec(t);
    if (fence) {
      const len = fence[1]!.length;
      const bare = fence[2]!.trim() === "";
      const innermost = inner.at(-1);
      if (!bare) inner.push(len);
      else if (innermost !== undefined) {
        // A shorter bare fence inside an inner block is that block's content.
        if (len >= innermost) inner.pop();
      } else if (len >= open.ticks) return { body, next: j + 1, closed: true };
      else inner.push(len);
    }
    body.push(line);
  }
  return { body, next: lines.length, closed: false };
}
