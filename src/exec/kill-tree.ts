// Hand-written, kept (`npm run bench libs kill`, docs/performance.md): against `tree-kill` on the same
// tree (a child, a grandchild, a grandchild that left the group with setsid), both killed every process (0 of 27
// left), but tree-kill took 879 ms to return (one `ps --ppid` process per level of the tree) against 45 ms here
// (medians of 9 on a loaded 2-core machine): a cancelled run would wait that long for its checks to stop.
import { readdirSync, readFileSync } from "node:fs";

/**
 * SIGKILL a process, its process group, and every descendant still attached to the tree, including those that
 * left the group with `setsid` (a test runner's daemonised helper). Read from /proc; a process that double-forked
 * and was re-parented to init before this runs cannot be found this way (the bubblewrap sandbox's own PID
 * namespace covers that case: its processes die with it).
 */
export function killTree(pid: number): void {
  const victims = [pid, ...descendants(pid)];
  signal(-pid);
  for (const p of victims) signal(p);
}

function signal(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone (ESRCH): nothing left to kill.
  }
}

/** Every process whose parent chain leads to `root`, from /proc (empty where /proc cannot be read). */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[] = [];
  try {
    entries = readdirSync("/proc");
  } catch {
    // No /proc (not Linux): the process-group kill is all we can do.
    return [];
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // exited while we looked
    }
    // The command name is in parentheses and may contain spaces: the fields after the last ")" are fixed.
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(name));
    children.set(ppid, list);
  }
  const out: number[] = [];
  const queue = [root];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    for (const child of children.get(pid) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}
