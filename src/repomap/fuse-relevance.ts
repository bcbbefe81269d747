import { coChangeScores } from "./co-change.js";
import { pairTests } from "./test-pairs.js";

/** What the request brings beyond its text, each a set of repo-relative paths or the history to read. */
export interface RelevanceSignals {
  /** Every candidate file. */
  files: readonly string[];
  /** Lexical relevance of each file to the request (see lexicalScores), best 1. */
  lexical: ReadonlyMap<string, number>;
  chatFiles?: readonly string[];
  /** Files the request names (paths, unique basenames, stems). */
  mentionedFiles?: readonly string[];
  /** Files the context points at: a pull request's changed files, files of review threads and CI annotations. */
  hintFiles?: readonly string[];
  /** Recent commits, each the paths it changed (empty for a depth-1 clone). */
  history?: readonly (readonly string[])[];
}

/**
 * How much each signal adds to a file's relevance before it is scaled to a best of 1. A file the request or its
 * context names counts as much as the best lexical match; co-change and test pairing carry half of what they
 * inherit from.
 */
export const SIGNAL_WEIGHTS = { lexical: 1, mentioned: 1, hint: 1, coChange: 0.5, testPair: 0.5 } as const;
/** The best lexical matches that seed co-change (besides the chat, mentioned and hint files). */
const LEXICAL_SEEDS = 5;

/**
 * Fuse the request's signals into one relevance per file (best 1; files with none are absent; chat files are never
 * listed, they are not in the map): lexical + mentioned + hinted, plus co-change with the chat, mentioned, hinted
 * and best lexical files, then each test or source lifted to half of its partner's relevance (a chat file's partner
 * to half of the best). Pure and deterministic. Example: with `lexical` {"src/retry.ts": 1} and files
 * ["src/retry.ts", "test/retry.test.ts"], "test/retry.test.ts" gets 0.5.
 */
export function fuseRelevance(signals: RelevanceSignals): Map<string, number> {
  const chat = new Set(signals.chatFiles ?? []);
  const known = new Set(signals.files);
  const named = new Set(
    [...(signals.mentionedFiles ?? []), ...(signals.hintFiles ?? [])].filter((f) => known.has(f) || chat.has(f)),
  );
  const score = new Map<string, number>();
  const add = (f: string, v: number): void => {
    if (v > 0 && known.has(f)) score.set(f, (score.get(f) ?? 0) + v);
  };
  for (const [f, v] of signals.lexical) add(f, SIGNAL_WEIGHTS.lexical * v);
  for (const f of signals.mentionedFiles ?? []) add(f, SIGNAL_WEIGHTS.mentioned);
  for (const f of signals.hintFiles ?? []) add(f, SIGNAL_WEIGHTS.hint);

  const seeds = new Map<string, number>();
  for (const f of [...chat, ...named]) seeds.set(f, 1);
  const bestLexical = [...signals.lexical]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, LEXICAL_SEEDS);
  for (const [f, v] of bestLexical) if (!seeds.has(f)) seeds.set(f, v);
  if (signals.history && signals.history.length > 0) {
    for (const [f, v] of coChangeScores(signals.history, seeds, new Set([...known, ...chat])))
      add(f, SIGNAL_WEIGHTS.coChange * v);
  }

  const pairs = pairTests([...new Set([...signals.files, ...chat])]);
  const lifted = new Map(score);
  for (const [f, partners] of pairs) {
    if (!known.has(f)) continue;
    let from = 0;
    for (const p of partners) from = Math.max(from, chat.has(p) ? 1 : (score.get(p) ?? 0));
    const v = SIGNAL_WEIGHTS.testPair * from;
    if (v > (lifted.get(f) ?? 0)) lifted.set(f, v);
  }

  let best = 0;
  for (const [f, v] of lifted) if (!chat.has(f)) best = Math.max(best, v);
  const out = new Map<string, number>();
  if (!(best > 0)) return out;
  for (const f of signals.files) {
    const v = lifted.get(f);
    if (v !== undefined && v > 0 && !chat.has(f) && !out.has(f)) out.set(f, v / best);
  }
  return out;
}
