/**
 * Edit-engine benchmark: applying one SEARCH/REPLACE block (through `applyEdits`, as the bot does) to a generated
 * 20,000-line file, per matching rung, each as a ratio to a plain `indexOf` of the same SEARCH text over the same
 * file (median of several runs, measured side by side). Targets: (a) exact ≤ 20 ms, (d) no match — the full ladder
 * plus "did you mean" — ≤ 200 ms. Run: `npx tsx bench/edits-bench.ts`.
 */
import { pathToFileURL } from "node:url";
import { applyEdits } from "../src/edits/apply-edits.js";
import { editBlockFormat } from "../src/edits/editblock/index.js";
import type { ApplyOutcome, Edit, MatchRung } from "../src/edits/types.js";

const LINES = 20_000;
const RUNS = 9;

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

function time(fn: () => void): number {
  fn(); // warm-up
  const t: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    fn();
    t.push(performance.now() - t0);
  }
  return median(t);
}

interface BenchCase {
  name: string;
  search: string[];
  replace: string[];
  target: number | null;
  expect: MatchRung | "no-match";
}

/** Print the timings; returns nothing, throws nothing (a missed target or an unexpected rung is printed). */
export async function runEditsBench(): Promise<void> {
  const lines = generateLines();
  const file = `${lines.join("\n")}\n`;
  const region = lines.slice(15_001, 15_005); // four indented statements
  const text = (ls: string[]) => `${ls.join("\n")}\n`;
  const cases: BenchCase[] = [
    { name: "(a) exact unique block", search: region, replace: ["    // replaced"], target: 20, expect: "exact" },
    { name: "(b) indentation rung", search: region.map((l) => l.slice(4)), replace: ["// replaced"], target: null, expect: "indent" },
    { name: "(c) ... elision", search: [region[0]!, "...", region[3]!], replace: ["    // first", "...", "    // last"], target: null, expect: "elision" },
    { name: "(d) no match (full ladder + did-you-mean)", search: region.map((l) => l.replace("compute", "calculate")), replace: ["x"], target: 200, expect: "no-match" },
  ];
  console.log(`\nedits: one block applied to a ${LINES.toLocaleString()}-line file (${(file.length / 1e6).toFixed(2)} MB), median of ${RUNS}`);
  for (const c of cases) {
    const edit: Edit = { kind: "replace", path: "big.ts", search: text(c.search), replace: text(c.replace) };
    let out: ApplyOutcome | null = null;
    const ms = time(() => {
      out = applyEdits(editBlockFormat, { files: new Map([["big.ts", file]]) }, [edit], { chatFiles: ["big.ts"] });
    });
    const base = time(() => void file.indexOf(edit.search));
    const result = out as ApplyOutcome | null;
    const got = result?.applied[0]?.rung ?? result?.failed[0]?.reason ?? "?";
    const status = got === c.expect ? `rung ${got}` : `UNEXPECTED: ${got}, wanted ${c.expect}`;
    const target = c.target === null ? "" : `  target ≤ ${c.target} ms: ${ms <= c.target ? "met" : "MISSED"}`;
    const ratio = (ms / Math.max(base, 0.001)).toFixed(0);
    console.log(`  ${c.name.padEnd(44)} ${ms.toFixed(2).padStart(8)} ms  ${ratio.padStart(6)}× indexOf (${base.toFixed(3)} ms)  ${status}${target}`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await runEditsBench();
