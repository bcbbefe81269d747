/**
 * Edit-engine benchmark: applying one SEARCH/REPLACE block to a generated 20,000-line file, per matching rung,
 * each as a ratio to a plain `indexOf` of the same SEARCH text over the same file (measured side by side).
 * Targets: exact ≤ 20 ms, no-match (full ladder + did-you-mean) ≤ 200 ms.
 */
import { pathToFileURL } from "node:url";
import { editBlockFormat } from "../src/edits/editblock/index.js";
import { applyEdits } from "../src/edits/apply-edits.js";
import type { Edit } from "../src/edits/types.js";

const LINES = 20_000;

function generateFile(): string {
  const out: string[] = [];
  for (let i = 0; i < LINES; i++) {
    if (i % 10 === 0) out.push(`function fn${i}(arg${i}) {`);
    else if (i % 10 === 9) out.push("}");
    else out.push(`    const value${i} = compute(${i}, arg${i - (i % 10)}) + ${i % 7};`);
  }
  return `${out.join("\n")}\n`;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function time(fn: () => void, runs = 9): number {
  fn(); // warm-up
  const t: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    t.push(performance.now() - t0);
  }
  return median(t);
}

export async function runEditsBench(): Promise<void> {
  const file = generateFile();
  const at = 15_000;
  const region = file.split("\n").slice(at, at + 4).join("\n") + "\n";
  const cases: { name: string; search: string; replace: string; target: number; expectOk: boolean }[] = [
    { name: "(a) exact unique block", search: region, replace: "    // replaced\n", target: 20, expectOk: true },
    { name: "(b) indentation rung", search: region.split("\n").map((l) => l.replace(/^ {4}/, "")).join("\n"), replace: "// replaced\n", target: Infinity, expectOk: true },
    { name: "(c) ... elision", search: `${region.split("\n")[0]}\n...\n${region.split("\n")[3]}\n`, replace: `// first\n...\n// last\n`, target: Infinity, expectOk: true },
    { name: "(d) no match (full ladder + did-you-mean)", search: region.replace(/compute/g, "calculate"), replace: "x\n", target: 200, expectOk: false },
  ];
  console.log(`\nedits: applying one block to a ${LINES.toLocaleString()}-line file (${(file.length / 1e6).toFixed(2)} MB), median of 9`);
  for (const c of cases) {
    const edit: Edit = { kind: "replace", path: "big.ts", search: c.search, replace: c.replace };
    let ok = false;
    const ms = time(() => {
      const out = applyEdits(editBlockFormat, { files: new Map([["big.ts", file]]) }, [edit], { chatFiles: ["big.ts"] });
      ok = out.failed.length === 0;
    });
    const base = time(() => void file.indexOf(c.search));
    const status = ok === c.expectOk ? "" : "  UNEXPECTED RESULT";
    const target = Number.isFinite(c.target) ? ` (target ≤ ${c.target} ms: ${ms <= c.target ? "met" : "MISSED"})` : "";
    console.log(`  ${c.name.padEnd(44)} ${ms.toFixed(2).padStart(8)} ms   ${(ms / Math.max(base, 0.001)).toFixed(0).padStart(6)}× indexOf (${base.toFixed(3)} ms)${target}${status}`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await runEditsBench();
