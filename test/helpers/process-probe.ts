import { readdirSync, readFileSync } from "node:fs";
import { pollUntil } from "./wait-until.js";

/** Host pids whose command line contains `marker` (read from /proc). */
export function pidsWithArg(marker: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").includes(marker)) out.push(Number(name));
    } catch {
      // exited while we looked
    }
  }
  return out;
}

/** Poll (without sleeping on a fixed delay first) until no process carries `marker`; the survivors after 5 s. */
export async function survivorsOf(marker: string): Promise<number[]> {
  return (await pollUntil(() => pidsWithArg(marker).length === 0, 5_000)) ? [] : pidsWithArg(marker);
}

/** A unique `sleep` duration to find a test's processes by (seconds; long enough to outlive the test). */
export const uniqueSleep = (): string => String(100_000 + Math.floor(Math.random() * 800_000));
