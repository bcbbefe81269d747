/**
 * `npm run bench base-priority`: what the base's run beside the change's own checks costs them, with the base at
 * normal priority (as before) and as background work (exec `priority: "background"`, see src/exec/priority.ts).
 *
 * The "checks" are a CPU-bound command that keeps two processes busy (a test suite on a 2-core machine: a parallel
 * make, `go test`, a pool of test workers), run in bubblewrap where it works here (else on the host), as the change's
 * check; the base's run is the same command, started with it and stopped when the change's ends. Printed: the
 * change's check time beside a base run ÷ its time alone, at each priority (medians of interleaved rounds, all
 * measured side by side in this run).
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createExec } from "../src/exec/create-exec.js";
import { createSandboxedExec, probeSandbox } from "../src/exec/sandbox.js";
import type { Exec, ProcessPriority } from "../src/exec/types.js";

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Two busy shell loops of `n` steps each, in parallel. */
const busy = (n: number) => `for j in 1 2; do ( i=0; while [ $i -lt ${n} ]; do i=$((i+1)); done ) & done; wait`;

export async function runBasePriorityBench(rounds = 5): Promise<void> {
  const host = createExec({ sourceEnv: process.env });
  const sandboxed = await probeSandbox(host);
  const exec: Exec = sandboxed ? createSandboxedExec(host, { hide: [], network: false }) : host;
  const dir = await mkdtemp(path.join(os.tmpdir(), "base-priority-"));
  try {
    const timed = async (command: string, priority: ProcessPriority = "normal", urgent?: AbortSignal) => {
      const r = await exec.run({
        command,
        shell: true,
        cwd: dir,
        timeoutMs: 600_000,
        priority,
        ...(urgent ? { urgent } : {}),
      });
      if (r.exitCode !== 0) throw new Error(`the check failed: ${r.output.slice(-500)}`);
      return r.durationMs;
    };
    // About 2 s alone on this machine now.
    const probe = 300_000;
    const n = Math.max(probe, Math.round((probe * 2000) / (await timed(busy(probe)))));
    const check = busy(n);
    const beside = async (priority: ProcessPriority) => {
      const stop = new AbortController();
      const base = exec.run({
        command: busy(n * 10),
        shell: true,
        cwd: dir,
        timeoutMs: 600_000,
        priority,
        signal: stop.signal,
      });
      try {
        return await timed(check);
      } finally {
        stop.abort();
        await base;
      }
    };
    const times = {
      alone: [] as number[],
      normal: [] as number[],
      background: [] as number[],
      bgAlone: [] as number[],
      raised: [] as number[],
    };
    for (let i = 0; i < rounds; i++) {
      times.alone.push(await timed(check));
      times.normal.push(await beside("normal"));
      times.background.push(await beside("background"));
      times.bgAlone.push(await timed(check, "background"));
      // Raised as the run starts waiting for it (a failed check of the change asks for the base's result).
      const waited = new AbortController();
      setTimeout(() => waited.abort(), 100);
      times.raised.push(await timed(check, "background", waited.signal));
    }
    const alone = median(times.alone);
    const line = (what: string, ms: number[]) =>
      `  ${what.padEnd(48)} ${(median(ms) / 1000).toFixed(2)} s  ${(median(ms) / alone).toFixed(2)}×`;
    console.log(
      [
        `base-priority: the change's check (two busy processes, ${sandboxed ? "in bubblewrap" : "on the host"}), medians of ${rounds} interleaved rounds`,
        line("alone", times.alone),
        line("beside the base's run at normal priority", times.normal),
        line("beside the base's run as background work", times.background),
        // The other side: a base command as background work, the change's checks not running (the run waits for it
        // after a failure), against the same command at normal priority (the "alone" line): the machine's other load.
        line("the base's command alone, as background work", times.bgAlone),
        line("the same, raised as the run waits for it (root)", times.raised),
      ].join("\n"),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
