/**
 * Edit-engine benchmark on a generated 20,000-line file, per matching rung, measured side by side in one run:
 * - our parse + apply of a one-block answer (through `parseAndApply`, as the bot does) as a ratio to a plain
 *   `indexOf` of the same SEARCH text; targets: (a) exact ≤ 20 ms, (d) no match — the full ladder plus "did you
 *   mean" — ≤ 200 ms;
 * - the same answers through Aider's own `find_original_update_blocks` + `do_replace` (issue #15: ours must be at
 *   least as fast for exact, indent and elision), when `AIDER_SRC` names a directory holding Aider's source
 *   (`aider/coders/editblock_coder.py`); `bench/edits-aider-driver.py` runs it with python3. Without it the
 *   comparison is skipped, and the reason printed.
 * Run: `npx tsx bench/edits-bench.ts` (or `AIDER_SRC=/path/to/aider npx tsx bench/edits-bench.ts`).
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseAndApply, type ParseAndApplyResult } from "../src/edits/registry.js";
import type { MatchRung } from "../src/edits/types.js";
import { createExec } from "../src/exec/create-exec.js";

const LINES = 20_000;
const RUNS = 15;
const FILE = "big.ts";

/** Functions of 10 lines: a header, 8 indented statements, a closing brace; every statement line is unique. */
function generateLines(): string[] {
  const out: string[] = [];
  for (let i = 0; i < LINES; i++) {
    if (i % 10 === 0) out.push(`function fn${i}(arg${i}) {`);
    else if (i % 10 === 9) out.push("}");
    else out.push(`    const value${i} = compute(${i}, arg${i - (i % 10)}) + ${i % 7};`);
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Median and fastest of RUNS timed runs after three warm-ups (the JIT settles). */
function timeRuns(fn: () => void): { ms: number; minMs: number } {
  for (let i = 0; i < 3; i++) fn();
  const t: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    fn();
    t.push(performance.now() - t0);
  }
  return { ms: median(t), minMs: Math.min(...t) };
}

const time = (fn: () => void): number => timeRuns(fn).ms;

interface BenchCase {
  name: string;
  search: string[];
  replace: string[];
  target: number | null;
  expect: MatchRung | "no-match";
  /** Compared with Aider's applier (the cases that succeed in both). */
  vsAider: boolean;
}

interface AiderTiming {
  name: string;
  ms: number;
  minMs: number;
  sha256: string | null;
}

const text = (ls: string[]) => `${ls.join("\n")}\n`;
const answerFor = (c: BenchCase) =>
  `${FILE}\n\`\`\`ts\n<<<<<<< SEARCH\n${text(c.search)}=======\n${text(c.replace)}>>>>>>> REPLACE\n\`\`\`\n`;
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

/** Aider's timings for the cases, or why they could not be measured. */
async function timeAider(
  file: string,
  cases: BenchCase[],
  aiderSrc: string | undefined,
): Promise<AiderTiming[] | string> {
  if (!aiderSrc)
    return "AIDER_SRC is not set (point it at a directory holding Aider's source, aider/coders/editblock_coder.py)";
  const found = ["aider/coders/editblock_coder.py", "coders/editblock_coder.py"].some((p) =>
    existsSync(path.join(aiderSrc, p)),
  );
  if (!found) return `AIDER_SRC=${aiderSrc} holds no aider/coders/editblock_coder.py`;
  const driver = path.join(path.dirname(fileURLToPath(import.meta.url)), "edits-aider-driver.py");
  const job = {
    aiderSrc,
    file,
    fname: FILE,
    runs: RUNS,
    cases: cases.map((c) => ({ name: c.name, answer: answerFor(c) })),
  };
  const exec = createExec({ sourceEnv: process.env });
  const r = await exec.run({
    command: "python3",
    args: [driver],
    cwd: path.dirname(driver),
    input: JSON.stringify(job),
    timeoutMs: 300_000,
    maxOutputBytes: 1_000_000,
  });
  if (r.spawnError) return `python3 could not be started: ${r.spawnError}`;
  if (r.exitCode !== 0) return `the Aider driver failed (exit ${r.exitCode}): ${r.stderr.trim().slice(-500)}`;
  return (JSON.parse(r.stdout) as { cases: AiderTiming[] }).cases;
}

/** Print the timings; returns nothing, throws nothing (a missed target or an unexpected rung is printed). */
export async function runEditsBench(aiderSrc: string | undefined = process.env.AIDER_SRC): Promise<void> {
  const lines = generateLines();
  const file = text(lines);
  const region = lines.slice(15_001, 15_005); // four indented statements
  const cases: BenchCase[] = [
    {
      name: "(a) exact unique block",
      search: region,
      replace: ["    // replaced"],
      target: 20,
      expect: "exact",
      vsAider: true,
    },
    {
      name: "(b) indentation rung",
      search: region.map((l) => l.slice(4)),
      replace: ["// replaced"],
      target: null,
      expect: "indent",
      vsAider: true,
    },
    {
      name: "(c) ... elision",
      search: [region[0]!, "...", region[3]!],
      replace: ["    // first", "...", "    // last"],
      target: null,
      expect: "elision",
      vsAider: true,
    },
    {
      name: "(d) no match (full ladder + did-you-mean)",
      search: region.map((l) => l.replace("compute", "calculate")),
      replace: ["x"],
      target: 200,
      expect: "no-match",
      vsAider: false,
    },
  ];
  console.log(
    `\nedits: a one-block answer parsed and applied to a ${LINES.toLocaleString()}-line file (${(file.length / 1e6).toFixed(2)} MB), median of ${RUNS}`,
  );
  const ours = new Map<string, { ms: number; minMs: number; out: string | null }>();
  for (const c of cases) {
    const answer = answerFor(c);
    let result: ParseAndApplyResult | null = null;
    const { ms, minMs } = timeRuns(() => {
      result = parseAndApply(
        "diff",
        answer,
        { files: new Map([[FILE, file]]) },
        { fence: ["```", "```"], chatFiles: [FILE] },
      );
    });
    const base = time(() => void file.indexOf(text(c.search)));
    const r = result as ParseAndApplyResult | null;
    const got = r?.outcome.applied[0]?.rung ?? r?.outcome.failed[0]?.reason ?? "?";
    ours.set(c.name, { ms, minMs, out: (r?.outcome.changes.get(FILE) as string | undefined) ?? null });
    const status = got === c.expect ? `rung ${got}` : `UNEXPECTED: ${got}, wanted ${c.expect}`;
    const target = c.target === null ? "" : `  target ≤ ${c.target} ms: ${ms <= c.target ? "met" : "MISSED"}`;
    const ratio = (ms / Math.max(base, 0.001)).toFixed(0);
    console.log(
      `  ${c.name.padEnd(44)} ${ms.toFixed(2).padStart(8)} ms  ${ratio.padStart(6)}× indexOf (${base.toFixed(3)} ms)  ${status}${target}`,
    );
  }
  const compared = cases.filter((c) => c.vsAider);
  const aider = await timeAider(file, compared, aiderSrc);
  if (typeof aider === "string") {
    console.log(`  vs Aider: skipped: ${aider}`);
    return;
  }
  // Medians decide; the fastest runs are printed too, since a loaded machine slows the two processes unevenly.
  console.log(
    "  vs Aider's find_original_update_blocks + do_replace (python3, same answers, same run; target ours/Aider ≤ 1):",
  );
  for (const a of aider) {
    const o = ours.get(a.name)!;
    const same =
      a.sha256 === null
        ? "Aider did not apply it"
        : o.out !== null && sha256(o.out) === a.sha256
          ? "same output"
          : "outputs differ";
    const ratio = o.ms / Math.max(a.ms, 0.001);
    const best = o.minMs / Math.max(a.minMs, 0.001);
    console.log(
      `  ${a.name.padEnd(44)} ours ${o.ms.toFixed(2).padStart(7)} ms  Aider ${a.ms.toFixed(2).padStart(7)} ms  ours/Aider ${ratio.toFixed(2)} ${ratio <= 1 ? "met" : "MISSED"}` +
        `  (fastest runs: ${o.minMs.toFixed(2)} / ${a.minMs.toFixed(2)} ms = ${best.toFixed(2)}; ${same})`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await runEditsBench();
