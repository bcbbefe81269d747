/**
 * Worker pools: ours (src/repomap/extractor-pool.ts) against piscina and tinypool, extracting the tags of the same
 * generated TypeScript files on the same number of threads, 32 files in flight per thread (the window
 * src/repomap/load-file-tags.ts keeps, so no worker waits for its next file).
 * All three run the built code (`npm run build` first). Printed: the median wall time per round (pool start
 * included, as a job's first map pays it) and the time of a round once started, with the ratio to ours.
 */
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Piscina } from "piscina";
import Tinypool from "tinypool";
import { createExtractorPool } from "../../src/repomap/extractor-pool.js";
import { fixed, median, msSince, ratio } from "./bench-stats.js";

const ROUNDS = 5;
const FILES = 600;
const THREADS = 1;
const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

function generatedFile(i: number): { relPath: string; content: string } {
  const lines = [`import { helper${(i + 1) % FILES} } from "./f${(i + 1) % FILES}.js";`];
  for (let k = 0; k < 8; k++) {
    lines.push(`export function helper${i}_${k}(a: number, b: string): string {`);
    lines.push(`  return b.repeat(a) + helper${(i + 1) % FILES}(${k});`, "}");
  }
  lines.push(`export class Widget${i} { size = ${i}; grow(by: number) { return this.size + by; } }`);
  return { relPath: `src/f${i}.ts`, content: lines.join("\n") };
}

interface Pool {
  run(file: { relPath: string; content: string }): Promise<unknown>;
  close(): Promise<void>;
}

const POOLS: [string, () => Pool][] = [
  [
    "ours (extractor-pool)",
    () => {
      const url = pathToFileURL(path.join(ROOT, "dist/repomap/tag-worker.js")).href;
      const pool = createExtractorPool(THREADS, { code: `import(${JSON.stringify(url)});` });
      return { run: (f) => pool.extract(f.relPath, f.content), close: () => pool.dispose() };
    },
  ],
  [
    "piscina 5",
    () => {
      const pool = new Piscina({
        filename: path.join(ROOT, "bench/libs/pool-tag-task.mjs"),
        minThreads: THREADS,
        maxThreads: THREADS,
      });
      return { run: (f) => pool.run(f), close: () => pool.destroy() };
    },
  ],
  [
    "tinypool 2",
    () => {
      const pool = new Tinypool({
        filename: path.join(ROOT, "bench/libs/pool-tag-task.mjs"),
        minThreads: THREADS,
        maxThreads: THREADS,
      });
      return { run: (f) => pool.run(f), close: () => pool.destroy() };
    },
  ],
];

const WINDOW = 32;

/** Run every file through the pool with at most WINDOW × THREADS in flight; the answers in order. */
async function runAll(pool: Pool, files: { relPath: string; content: string }[]): Promise<unknown[]> {
  const out: unknown[] = new Array(files.length);
  let next = 0;
  const lane = async () => {
    while (next < files.length) {
      const i = next++;
      out[i] = await pool.run(files[i] ?? { relPath: "", content: "" });
    }
  };
  await Promise.all(Array.from({ length: WINDOW * THREADS }, lane));
  return out;
}

export async function runPoolBench(): Promise<void> {
  const files = Array.from({ length: FILES }, (_, i) => generatedFile(i));
  const cold = new Map<string, number[]>(POOLS.map(([n]) => [n, []]));
  const warm = new Map<string, number[]>(POOLS.map(([n]) => [n, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, make] of POOLS) {
      let start = process.hrtime.bigint();
      const pool = make();
      const first = await runAll(pool, files);
      cold.get(name)?.push(msSince(start));
      if (first.some((b) => !b)) throw new Error(`${name}: a file came back without tags`);
      start = process.hrtime.bigint();
      await runAll(pool, files);
      warm.get(name)?.push(msSince(start));
      await pool.close();
    }
  }
  const ours = POOLS[0]?.[0] ?? "";
  const c0 = median(cold.get(ours) ?? []);
  const w0 = median(warm.get(ours) ?? []);
  console.log(`\n== worker pools: tag extraction of ${FILES} files on ${THREADS} thread(s), ${ROUNDS} rounds, median`);
  for (const [name] of POOLS) {
    const c = median(cold.get(name) ?? []);
    const w = median(warm.get(name) ?? []);
    console.log(
      `  ${name.padEnd(22)} with start ${fixed(c, 0).padStart(6)} ms (${ratio(c, c0)})   started ${fixed(w, 0).padStart(6)} ms (${ratio(w, w0)})`,
    );
  }
}
