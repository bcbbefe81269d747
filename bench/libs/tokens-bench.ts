/**
 * Token counting: our o200k table (src/llm/bpe-table.ts, read as it lies in the build's file) against gpt-tokenizer
 * itself (its o200k encoding, which builds its maps when loaded). Each measurement is a fresh process (a job
 * process, a CLI or an Action run loads the counter once and counts a few texts): load time (wall and CPU), memory
 * kept after load (RSS and heap, after a GC), and the time to count this repository's sources. Needs `npm run build`
 * (the table is in dist/data). Runs alternate between the two; medians are printed with the ratio library / ours.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { fixed, median, ratio } from "./bench-stats.js";

const RUNS = 5;
const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

type Sample = {
  loadMs: number;
  loadCpuMs: number;
  rssMb: number;
  heapMb: number;
  countMs: number;
  tokens: number;
  chars: number;
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : [],
  );
}

export async function runTokensBench(): Promise<void> {
  if (!existsSync(path.join(ROOT, "dist/data/o200k_base.table"))) throw new Error("run `npm run build` first");
  const files = sources(path.join(ROOT, "src"));
  const child = path.join(ROOT, "bench/libs/token-load-child.ts");
  const samples: Record<"ours" | "library", Sample[]> = { ours: [], library: [] };
  for (let run = 0; run < RUNS; run++) {
    for (const which of ["ours", "library"] as const) {
      const out = execFileSync(
        process.execPath,
        ["--expose-gc", "--import", "tsx", child, which, JSON.stringify(files)],
        { cwd: ROOT, encoding: "utf8" },
      );
      samples[which].push(JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as Sample);
    }
  }
  const m = (which: "ours" | "library", key: keyof Sample) => median(samples[which].map((s) => s[key]));
  const first = samples.ours[0];
  console.log(
    `\n== token counting, o200k (${RUNS} fresh processes each, medians; ${files.length} files, ${first?.chars} chars)`,
  );
  const rows: [string, keyof Sample, number][] = [
    ["load, wall ms", "loadMs", 0],
    ["load, CPU ms", "loadCpuMs", 0],
    ["RSS kept after load, MB", "rssMb", 1],
    ["heap kept after load, MB", "heapMb", 1],
    ["count the sources, ms", "countMs", 0],
  ];
  console.log(`  ${"".padEnd(26)} ${"ours".padStart(8)} ${"library".padStart(8)}  library/ours`);
  for (const [label, key, digits] of rows) {
    const ours = m("ours", key);
    const lib = m("library", key);
    console.log(
      `  ${label.padEnd(26)} ${fixed(ours, digits).padStart(8)} ${fixed(lib, digits).padStart(8)}  ${ours > 0.5 ? ratio(lib, ours) : "—"}`,
    );
  }
  const same = samples.ours.every((s, i) => s.tokens === samples.library[i]?.tokens);
  console.log(`  same counts: ${same ? "yes" : "NO"} (${first?.tokens} tokens)`);
}
