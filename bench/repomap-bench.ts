/**
 * Repo-map benchmark: cold (empty cache) and warm (unchanged repo) map builds, each as a ratio to the raw
 * tree-sitter parse time of the same files measured in the same run (parse only, no queries, contents already in
 * memory). Targets: cold ≤ 2× raw parse, warm ≤ 5 % of cold. Run: `npx tsx bench/repomap-bench.ts`.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadTokenizer } from "../src/llm/count-tokens.js";
import { buildRepoMap } from "../src/repomap/build-repo-map.js";
import { createParser, languageForPath, type LanguageId } from "../src/treesitter/languages.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MAX_FILE_BYTES = 1_000_000;

/** Run both scenarios and print their figures. */
export async function runRepomapBench(): Promise<void> {
  await loadTokenizer();
  const tmp = await mkdtemp(path.join(os.tmpdir(), "repomap-bench-"));
  try {
    const generated = path.join(tmp, "generated");
    await generateTsRepo(generated, 5000);
    await benchOne("generated TS repo", generated, await walkCode(generated, 5000), path.join(tmp, "cache-gen"));
    const real = path.join(HERE, "..", "node_modules");
    await benchOne("node_modules .ts/.d.ts", real, await walkCode(real, 3000), path.join(tmp, "cache-real"));
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

async function benchOne(label: string, root: string, files: string[], cacheDir: string): Promise<void> {
  const peak = sampleRss();
  const contents = await Promise.all(files.map((f) => readFile(path.join(root, f), "utf8")));
  const bytes = contents.reduce((s, c) => s + c.length, 0);
  const parseMs = await rawParse(files, contents);
  const mentionedIdents = ["createService42", "Widget17"];
  const cold = await buildRepoMap({ root, files, cacheDir, mentionedIdents });
  const warm = await buildRepoMap({ root, files, cacheDir, mentionedIdents: ["somethingElse", "Widget99"] });
  const peakRss = peak.stop();
  const mb = (n: number) => (n / 1e6).toFixed(1);
  console.log(`\nrepomap · ${label}: ${files.length} files, ${mb(bytes)} MB`);
  console.log(`  raw parse         ${parseMs.toFixed(0)} ms  (${rate(files.length, parseMs)} files/s)`);
  console.log(
    `  cold map          ${cold.stats.ms.toFixed(0)} ms  = ${(cold.stats.ms / parseMs).toFixed(2)}× raw parse (target ≤ 2×)` +
      `  ${rate(files.length, cold.stats.ms)} files/s, parsed ${cold.stats.parsed}`,
  );
  console.log(
    `  warm map          ${warm.stats.ms.toFixed(0)} ms  = ${((100 * warm.stats.ms) / cold.stats.ms).toFixed(1)} % of cold (target ≤ 5 %)` +
      `  ${rate(files.length, warm.stats.ms)} files/s, parsed ${warm.stats.parsed}, cache hits ${warm.stats.cacheHits}`,
  );
  console.log(`  map tokens        ${warm.stats.tokens}; peak RSS ${mb(peakRss)} MB`);
}

/** Parse every file once with one parser per language, no queries: the floor any tag extraction stands on. */
async function rawParse(files: string[], contents: string[]): Promise<number> {
  const parsers = new Map<LanguageId, Awaited<ReturnType<typeof createParser>>>();
  for (const f of files) {
    const id = languageForPath(f);
    if (id && !parsers.has(id)) parsers.set(id, await createParser(id));
  }
  const started = performance.now();
  files.forEach((f, i) => {
    const parser = parsers.get(languageForPath(f) as LanguageId);
    parser?.parse(contents[i])?.delete();
  });
  const ms = performance.now() - started;
  for (const p of parsers.values()) p.delete();
  return ms;
}

function sampleRss(): { stop: () => number } {
  let max = process.memoryUsage().rss;
  const timer = setInterval(() => (max = Math.max(max, process.memoryUsage().rss)), 10);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(max, process.memoryUsage().rss);
    },
  };
}

const rate = (n: number, ms: number) => Math.round((n * 1000) / ms).toString();

/** A synthetic TypeScript repo: modules that define classes, interfaces and functions and use each other's. */
async function generateTsRepo(root: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const dir = path.join(root, `pkg${i % 50}`);
    if (i < 50) await mkdir(dir, { recursive: true });
    const a = (i * 7 + 3) % count;
    const b = (i * 13 + 5) % count;
    const code = `import { createService${a}, Widget${b} } from "../pkg${a % 50}/module${a}.js";

export interface Options${i} {
  name: string;
  retries: number;
  widget?: Widget${b};
}

export type Mode${i} = "fast" | "safe";

export class Widget${i} {
  private count = 0;

  constructor(private readonly options: Options${i}) {}

  render(mode: Mode${i}): string {
    this.count += 1;
    return formatLabel${i}(this.options.name, mode) + helper${i}(this.count);
  }

  reset(): void {
    this.count = 0;
  }
}

export const helper${i} = (n: number): string => String(n * 2);

export function formatLabel${i}(name: string, mode: Mode${i}): string {
  const service = createService${a}({ name, retries: 1 });
  return \`\${name}:\${mode}:\${service.describe()}\`;
}

export function createService${i}(options: Options${i}) {
  const widget = new Widget${b}({ name: options.name, retries: options.retries });
  return { describe: () => widget.render("fast"), options };
}
`;
    await writeFile(path.join(dir, `module${i}.ts`), code);
  }
}

/** Up to `cap` code files under a directory, sorted, skipping huge ones (as the map does). */
async function walkCode(root: string, cap: number): Promise<string[]> {
  const out: string[] = [];
  const visit = async (rel: string): Promise<void> => {
    const entries = (await readdir(path.join(root, rel), { withFileTypes: true })).sort((x, y) => (x.name < y.name ? -1 : 1));
    for (const e of entries) {
      if (out.length >= cap) return;
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory() && e.name !== ".bin" && e.name !== ".cache") await visit(child);
      else if (e.isFile() && /\.(ts|d\.ts)$/.test(e.name) && languageForPath(child)) {
        if ((await stat(path.join(root, child))).size <= MAX_FILE_BYTES) out.push(child);
      }
    }
  };
  await visit("");
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await runRepomapBench();
}
