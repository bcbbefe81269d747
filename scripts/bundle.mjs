/**
 * Second step of `npm run build`, after tsc: bundle the five files Node starts from — the CLI, the job process's
 * child entry and module, its spawn helper and the repo map's worker thread — each with the code it imports, over
 * tsc's own output.
 *
 * Why: a job process used to spend ~0.65 s (and ~1.5 s of CPU with its warm-up) resolving and compiling ~750 ESM
 * modules one by one (zod, the OpenAI SDK and ours). Bundled, the same import takes ~0.25 s. Every run, the
 * Action and each test that starts the app pay it.
 *
 * The entries share chunks (`dist/chunks/`), so a module imported by two entries in one process is one instance
 * (a class checked with `instanceof` across the child entry and the job module stays one class). Packages that
 * load files of their own at run time (WebAssembly grammars, native addons, worker-thread transports, the
 * tokenizer's data, Probot and Octokit) stay external and load from node_modules as before. tsc's other output
 * stays in dist/ and is what the bundle was made from.
 *
 * Last, the tokenizer's table is written to dist/data (src/llm/bpe-table.ts): a process reads it as it lies, where
 * gpt-tokenizer compiled a 2.4 MB JavaScript table and built its maps (~0.3–0.8 s of CPU in each process).
 */
import { build } from "esbuild";
import { mkdir, rm, writeFile } from "node:fs/promises";
import process from "node:process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");

export const ENTRIES = [
  "cli/main.js",
  "app/run-job-process.js",
  "exec/fork-worker-child.js",
  "exec/spawn-helper-child.js",
  "repomap/tag-worker.js",
];

const EXTERNAL = [
  "probot",
  "@octokit/*",
  "pino",
  "pino-*",
  "thread-stream",
  "web-tree-sitter",
  "tree-sitter-*",
  "lmdb",
  "msgpackr",
  "msgpackr-extract",
  "bullmq",
  "ioredis",
  "gpt-tokenizer",
  "gpt-tokenizer/*",
  // The native providers' SDKs load only when a run's model needs them (llm/create-provider-client.ts), and the
  // cloud SDKs import their credential providers at run time.
  "@anthropic-ai/*",
  "@aws-sdk/*",
  "@aws-crypto/*",
  "@smithy/*",
  "google-auth-library",
  "@azure/*",
];

/**
 * What every bundle of the entries shares: dist's five entries, laid out as in dist/ under `outdir` (so their
 * `new URL("../exec/…", import.meta.url)` lookups resolve), split into shared chunks, ESM for Node 20.
 */
export function entryBuild(outdir) {
  return {
    absWorkingDir: root,
    entryPoints: ENTRIES.map((e) => path.join(dist, e)),
    outdir,
    outbase: dist,
    bundle: true,
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    platform: "node",
    target: "node20",
    format: "esm",
  };
}

export async function bundle() {
  await rm(path.join(dist, "chunks"), { recursive: true, force: true });
  await build({
    ...entryBuild(dist),
    allowOverwrite: true,
    external: EXTERNAL,
    sourcemap: "linked",
    logLevel: "warning",
    // Bundled CommonJS dependencies call require(): give the ESM output one.
    banner: {
      js: "import { createRequire as __aiderBotCreateRequire } from 'node:module'; const require = __aiderBotCreateRequire(import.meta.url);",
    },
  });
  await writeTokenTable();
}

/** dist/data/o200k_base.table, read by dist's count-tokens (the path is its TOKEN_TABLE_FILE). */
async function writeTokenTable() {
  const { encodeBpeTable } = await import(path.join(dist, "llm/bpe-table.js"));
  const { default: ranks } = await import("gpt-tokenizer/bpeRanks/o200k_base");
  await mkdir(path.join(dist, "data"), { recursive: true });
  await writeFile(path.join(dist, "data/o200k_base.table"), encodeBpeTable(ranks));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await bundle();
