/**
 * Commits touching more files than this say nothing about which files belong together (a rename sweep, a format
 * run, a shallow clone's only commit, which lists every file).
 */
export const MAX_FILES_PER_COMMIT = 20;

/**
 * How often history changed each file together with the seed files: for every commit (a list of the paths it
 * changed) holding a seed, every other path of it earns the seed's weight divided by log2(1 + the commit's size),
 * so small, focused commits count most. Scaled so the best file has 1; seeds themselves and files outside `known`
 * are left out. Without history (a depth-1 clone) or seeds the result is empty. Pure and deterministic.
 * Example: `coChangeScores([["a.ts", "b.ts"]], new Map([["a.ts", 1]]), new Set(["a.ts", "b.ts"]))` → `Map { "b.ts" => 1 }`.
 */
export function coChangeScores(
  history: readonly (readonly string[])[],
  seeds: ReadonlyMap<string, number>,
  known: ReadonlySet<string>,
): Map<string, number> {
  const raw = new Map<string, number>();
  if (seeds.size === 0) return raw;
  for (const commit of history) {
    if (commit.length < 2 || commit.length > MAX_FILES_PER_COMMIT) continue;
    let weight = 0;
    for (const f of commit) weight += seeds.get(f) ?? 0;
    if (weight === 0) continue;
    const share = weight / Math.log2(1 + commit.length);
    for (const f of commit) {
      if (seeds.has(f) || !known.has(f)) continue;
      raw.set(f, (raw.get(f) ?? 0) + share);
    }
  }
  let best = 0;
  for (const v of raw.values()) best = Math.max(best, v);
  const scores = new Map<string, number>();
  for (const [f, v] of [...raw].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) scores.set(f, v / best);
  return scores;
}
