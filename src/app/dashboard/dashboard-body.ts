/**
 * The schedules dashboard's issue body as data (pure): its marker, each schedule's "Run now" checkbox and the last
 * run it remembers. The body is the dashboard's only state (as every bot comment's state lives in GitHub), so any
 * replica can re-render it. People with write access can edit an issue body: what is read back is checked for shape
 * and only ever rendered as numbers, times and fixed words.
 */

/** Marks the one dashboard issue of a repository. */
export const DASHBOARD_MARKER = "<!-- aider-bot:dashboard -->";
export const DASHBOARD_TITLE = "aider-bot dashboard";

/** What the dashboard remembers of a schedule's last run. */
export interface LastRun {
  /** ISO time the run was started (or the tick skipped). */
  at: string;
  /** `started`, `skipped`, or the run's outcome kind (`pull-request`, `pushed`, `error`…). */
  outcome: string;
  /** The tracking issue the run reported on. */
  issue?: number;
  /** The pull request it opened or added to (or, for a skipped tick, the one still open). */
  pr?: number;
  /** Who ticked "Run now" (a GitHub login). */
  by?: string;
}

const runNowMarker = (key: string) => `<!-- aider-bot:run-now:${key} -->`;
const STATE_PREFIX = "<!-- aider-bot:schedule-state:";

/** The checkbox line of one schedule. */
export function runNowLine(key: string, ticked: boolean): string {
  return `- [${ticked ? "x" : " "}] Run now ${runNowMarker(key)}`;
}

/** One schedule's remembered last run, as a hidden line. */
export function stateLine(key: string, last: LastRun): string {
  return `${STATE_PREFIX}${key} ${Buffer.from(JSON.stringify(last)).toString("base64url")} -->`;
}

const KEY = "([^\\s>]+)";
const CHECKBOX = new RegExp(`^\\s*[-*] \\[([ xX])\\] .*<!-- aider-bot:run-now:${KEY} -->\\s*$`, "gm");

/** The keys whose "Run now" box is ticked in `body`. */
export function tickedKeys(body: string): string[] {
  return [...body.matchAll(CHECKBOX)].filter((m) => m[1] !== " ").map((m) => m[2]!);
}

/** The keys ticked in `after` that were not ticked in `before`: what an edit asked to start. */
export function newlyTicked(before: string, after: string): string[] {
  const was = new Set(tickedKeys(before));
  return tickedKeys(after).filter((k) => !was.has(k));
}

/** `body` with the boxes of `keys` unticked, everything else as it was. */
export function untick(body: string, keys: readonly string[]): string {
  const off = new Set(keys);
  return body.replace(CHECKBOX, (line: string, _mark: string, key: string) =>
    off.has(key) ? line.replace(/\[[xX]\]/, "[ ]") : line,
  );
}

const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v) && v > 0;

/** The last runs remembered in `body`, by schedule key; a line that does not parse is ignored. */
export function readLastRuns(body: string): Map<string, LastRun> {
  const out = new Map<string, LastRun>();
  for (const m of body.matchAll(
    new RegExp(`${STATE_PREFIX.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}${KEY} ([A-Za-z0-9_-]+) -->`, "g"),
  )) {
    try {
      const v = JSON.parse(Buffer.from(m[2]!, "base64url").toString("utf8")) as Record<string, unknown>;
      if (
        typeof v.at !== "string" ||
        Number.isNaN(Date.parse(v.at)) ||
        typeof v.outcome !== "string" ||
        !/^[a-z-]{1,20}$/.test(v.outcome)
      )
        continue;
      out.set(m[1]!, {
        at: new Date(v.at).toISOString(),
        outcome: v.outcome,
        ...(isNumber(v.issue) ? { issue: v.issue } : {}),
        ...(isNumber(v.pr) ? { pr: v.pr } : {}),
        ...(typeof v.by === "string" && /^[A-Za-z0-9-]{1,39}(\[bot\])?$/.test(v.by) ? { by: v.by } : {}),
      });
    } catch {
      // Not ours, or edited by hand: forgotten.
    }
  }
  return out;
}
