/**
 * The order of a replay bench's runs and the repository name each run gets on the fake GitHub. The app keys its
 * per-repository state by that name — the package caches (bubblewrap and container alike), the git mirror, the base
 * runs' results — so runs of one repository sharing its name find them warm, as a second PR of a real repository
 * does; `cold` gives every run a name of its own (every cache empty, the bench's behaviour before it shared names).
 */
import type { EditFormatName } from "../../src/edits/types.js";
import type { Variant } from "./replay-args.js";
import type { ReplayCase } from "./replay-case.js";

/** Whether the run is its repository name's first in this bench (empty caches) or a later one (caches kept). */
export type CacheState = "cold" | "warm";

export interface PlannedRun {
  case: ReplayCase;
  format: EditFormatName;
  variant: Variant;
  /** The repository's name on the fake GitHub (owner excluded). */
  name: string;
  cache: CacheState;
  /** The case's position in the manifest's selection: seeds the noise, so a repeat makes the same mistakes. */
  seed: number;
}

export interface PlanOptions {
  /** Each case × format × variant run this many times in a row (≥ 1). */
  repeat: number;
  /** Every run a repository name of its own: every cache cold. */
  cold: boolean;
}

/** The shared name of a case's repository: its GitHub name, so every case of one repository shares it. */
const sharedName = (c: ReplayCase) => `replay-${c.repo.split("/").at(-1)!.toLowerCase()}`;

export function planRuns(
  cases: readonly ReplayCase[],
  formats: readonly EditFormatName[],
  variants: readonly Variant[],
  options: PlanOptions,
): PlannedRun[] {
  const seen = new Set<string>();
  const runs: PlannedRun[] = [];
  for (const [seed, c] of cases.entries())
    for (const format of formats)
      for (const variant of variants)
        for (let i = 0; i < options.repeat; i++) {
          const name = options.cold ? `${c.id}-${format}-${variant}-${runs.length + 1}` : sharedName(c);
          runs.push({ case: c, format, variant, name, cache: seen.has(name) ? "warm" : "cold", seed });
          seen.add(name);
        }
  return runs;
}
