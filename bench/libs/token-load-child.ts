/**
 * One measurement of a token counter in a fresh process (run by tokens-bench.ts): load it (`ours`: the build's
 * table; `library`: gpt-tokenizer's o200k), then count every file given on stdin's list. Prints one JSON line.
 */
import { readFile } from "node:fs/promises";
import { createBpeCounter, readBpeTable } from "../../src/llm/bpe-table.js";
import { libraryCounter } from "../../src/llm/count-tokens.js";

const which = process.argv[2];
const files = JSON.parse(process.argv[3] ?? "[]") as string[];
const texts = await Promise.all(files.map((f) => readFile(f, "utf8")));
const table = new URL("../../dist/data/o200k_base.table", import.meta.url);
global.gc?.();
const rss0 = process.memoryUsage().rss;
const heap0 = process.memoryUsage().heapUsed;
const cpu0 = process.cpuUsage();
let start = process.hrtime.bigint();
let count: (text: string) => number;
if (which === "ours") {
  const { O200K_TOKEN_SPLIT_REGEX } = await import("gpt-tokenizer/encodingParams/constants");
  count = createBpeCounter(readBpeTable(await readFile(table)), O200K_TOKEN_SPLIT_REGEX);
} else {
  count = await libraryCounter();
}
count("warm");
const loadMs = Number(process.hrtime.bigint() - start) / 1e6;
const cpu = process.cpuUsage(cpu0);
const loadCpuMs = (cpu.user + cpu.system) / 1000;
global.gc?.();
const rssMb = (process.memoryUsage().rss - rss0) / 2 ** 20;
const heapMb = (process.memoryUsage().heapUsed - heap0) / 2 ** 20;
start = process.hrtime.bigint();
let tokens = 0;
for (const text of texts) tokens += count(text);
const countMs = Number(process.hrtime.bigint() - start) / 1e6;
const chars = texts.reduce((n, t) => n + t.length, 0);
console.log(JSON.stringify({ loadMs, loadCpuMs, rssMb, heapMb, countMs, tokens, chars }));
