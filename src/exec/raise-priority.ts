import { readdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { descendants } from "./kill-tree.js";

/**
 * Raise a background command's process tree back to normal priority (see exec/priority): every thread of `pid` and
 * of its descendants to nice 0, and their sessions' autogroups to 0. Best effort: raising a priority needs
 * CAP_SYS_NICE (an app running as root), and a process may exit while this runs; what cannot be raised stays as it
 * was. A shell of the tree raised here starts its next commands at normal priority.
 */
export function raiseToNormal(pid: number): void {
  for (const p of [pid, ...descendants(pid)]) {
    // A nice value belongs to a thread: a multi-threaded test runner (Node, a Go test binary) has several.
    for (const tid of threadsOf(p)) {
      try {
        os.setPriority(tid, 0);
      } catch {
        // Not permitted (no CAP_SYS_NICE), or gone.
      }
    }
    try {
      writeFileSync(`/proc/${p}/autogroup`, "0");
    } catch {
      // No autogroup here, not permitted, or gone.
    }
  }
}

function threadsOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).map(Number).filter(Number.isInteger);
  } catch {
    return [pid];
  }
}
