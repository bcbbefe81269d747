import type { SourceKind } from "../config/context-budget.js";

/** One piece of a source (a file's diff, a comment, a thread, a check, an earlier run), already sanitised. */
export interface ContextItem {
  /** Stable id (path, comment id, thread id, check run id, job id). */
  id: string;
  /** Short label shown in the block, e.g. "src/a.ts (+3 −1)" or "@alice, 2026-11-02". */
  label: string;
  text: string;
  tokens: number;
  /** Which end survives shortening: the head (default) or the tail (log output, where the error is at the end). */
  keep?: "head" | "tail";
  /** May be shortened by the weak model instead of cut (earlier runs' long answers). */
  summarisable?: boolean;
}

export interface ContextSource {
  kind: SourceKind;
  /** Items in priority order: what must survive a tight budget comes first. */
  items: ContextItem[];
  /** How a maintainer (or the model's user) can read what was cut, e.g. "the PR's Files tab". */
  seeAlso: string;
  /** Set when the source could not be read at all (missing permission, API error): shown as a note. */
  unavailable?: string;
}
