/**
 * Killing a process tree: ours (src/exec/kill-tree.ts: the process group, then every descendant found in /proc)
 * against `tree-kill` (which asks `ps --ppid` level by level, one process per level, then signals). Each run starts
 * the same tree in its own process group, as src/exec does: a shell with a child, a grandchild, and a grandchild that
 * left the group with `setsid` (a test runner's daemon). Printed: the median time to return (tree-kill: to its
 * callback) and the processes left alive, per tool.
 */
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import treeKill from "tree-kill";
import { killTree } from "../../src/exec/kill-tree.js";
import { fixed, median, msSince } from "./bench-stats.js";

const RUNS = 9;

/** Pids of the processes whose command line holds the marker (the tree's `sleep`s, unique to this run). */
function pidsOf(marker: string): number[] {
  try {
    return execFileSync("pgrep", ["-f", marker], { encoding: "utf8" }).trim().split("\n").filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when none match
  }
}

const alive = (marker: string) => pidsOf(marker).length;

async function startTree(marker: string): Promise<number> {
  const script = `sleep ${marker} & sh -c "sleep ${marker} & setsid sleep ${marker} & wait" & wait`;
  const child = spawn("sh", ["-c", script], { detached: true, stdio: "ignore" });
  await once(child, "spawn");
  // The tree is up when its three sleeps are.
  for (let i = 0; i < 500 && alive(marker) < 3; i++) await new Promise((r) => setTimeout(r, 10));
  return child.pid ?? 0;
}

/** Wait until none of the marker's processes is left, up to a limit; the count left then. */
async function settle(marker: string): Promise<number> {
  for (let i = 0; i < 100; i++) {
    if (alive(marker) === 0) return 0;
    await new Promise((r) => setTimeout(r, 20));
  }
  return alive(marker);
}

export async function runKillBench(): Promise<void> {
  const tools: [string, (pid: number) => Promise<void>][] = [
    ["ours (group + /proc)", async (pid) => killTree(pid)],
    ["tree-kill", (pid) => new Promise<void>((resolve) => treeKill(pid, "SIGKILL", () => resolve()))],
  ];
  const times = new Map<string, number[]>(tools.map(([name]) => [name, []]));
  const left = new Map<string, number>(tools.map(([name]) => [name, 0]));
  for (let run = 0; run < RUNS; run++) {
    for (const [name, kill] of tools) {
      const marker = `4242.${process.pid}${run}${name.length}`;
      const pid = await startTree(marker);
      const start = process.hrtime.bigint();
      await kill(pid);
      times.get(name)?.push(msSince(start));
      const survivors = await settle(marker);
      left.set(name, (left.get(name) ?? 0) + survivors);
      for (const survivor of pidsOf(marker)) process.kill(survivor, "SIGKILL"); // what the tool missed, by pid
    }
  }
  console.log(`\n== process-tree kill (${RUNS} trees each: child, grandchild, setsid grandchild; median)`);
  for (const [name] of tools) {
    const t = median(times.get(name) ?? []);
    console.log(
      `  ${name.padEnd(22)} ${fixed(t, 2).padStart(7)} ms to return   left alive: ${left.get(name)} of ${RUNS * 3}`,
    );
  }
}
