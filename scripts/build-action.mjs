/**
 * Build what the GitHub Action runs, so a runner starts it in seconds instead of running `npm ci` and the whole
 * build for every comment: `node scripts/build-action.mjs [OUT]` (default `action-dist/`), after `npm run build`.
 *
 * The output is self-contained: the five entry points of dist/ (the CLI, the job process, its spawn helper and the
 * repo map's worker thread, in dist's own layout so their `new URL("../exec/…", import.meta.url)` lookups still
 * resolve) bundled with every JavaScript dependency, the tokenizer table, and a `node_modules/` holding only the
 * packages that load files of their own at run time: the tree-sitter grammars (`.wasm` + queries), web-tree-sitter
 * and lmdb with its native binary for this platform. Nothing is minified, so the bundle reads like dist/.
 *
 * The build is deterministic: the same sources and lockfile give the same bytes, so CI can rebuild a committed
 * bundle and refuse one that differs (`--check DIR`), and what runs is still exactly the reviewed code.
 */
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { cp, readdir, readFile, rm, stat } from "node:fs/promises";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { entryBuild } from "./bundle.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "dist");

/** Packages that read files next to their own code (wasm, native addons): shipped as packages, not bundled. */
const SHIPPED = ["web-tree-sitter", "lmdb", "msgpackr-extract"];
const GRAMMAR_PREFIX = "tree-sitter-";

/** Build the Action's bundle into `out` (emptied first). */
export async function buildAction(out) {
  if (!existsSync(path.join(dist, "cli/main.js"))) throw new Error("dist/ is missing: run `npm run build` first");
  await rm(out, { recursive: true, force: true });
  const grammars = (await readdir(path.join(root, "node_modules"))).filter((n) => n.startsWith(GRAMMAR_PREFIX));
  await build({
    ...entryBuild(out),
    external: [...SHIPPED, ...grammars],
    logLevel: "error",
    legalComments: "eof",
    banner: {
      js: "import { createRequire as __actionCreateRequire } from 'node:module'; const require = __actionCreateRequire(import.meta.url);",
    },
  });
  await cp(path.join(dist, "data"), path.join(out, "data"), { recursive: true });
  const copied = new Set();
  for (const name of SHIPPED) await copyPackage(name, path.join(out, "node_modules"), copied);
  for (const name of grammars) await copyGrammar(name, path.join(out, "node_modules"));
  await cp(path.join(root, "LICENSE"), path.join(out, "LICENSE")).catch(() => undefined);
}

/** Copy an installed package and the packages it needs (present ones only: other platforms' binaries are absent). */
async function copyPackage(name, into, copied) {
  if (copied.has(name)) return;
  const from = path.join(root, "node_modules", name);
  if (!existsSync(from)) return;
  copied.add(name);
  await cp(from, path.join(into, name), { recursive: true, dereference: true });
  const pkg = JSON.parse(await readFile(path.join(from, "package.json"), "utf8"));
  for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) {
    await copyPackage(dep, into, copied);
  }
}

/** A grammar package needs only its manifest (how languages.ts finds it), its `.wasm` files and its licence. */
async function copyGrammar(name, into) {
  const from = path.join(root, "node_modules", name);
  for (const file of (await readdir(from)).sort()) {
    if (file === "package.json" || file.endsWith(".wasm") || /^licen[cs]e/i.test(file)) {
      await cp(path.join(from, file), path.join(into, name, file), { dereference: true });
    }
  }
}

/** Every file under `dir` with the SHA-256 of its bytes, sorted: what `--check` compares. */
export async function treeDigest(dir) {
  const entries = [];
  async function walk(rel) {
    for (const name of (await readdir(path.join(dir, rel))).sort()) {
      const relPath = path.join(rel, name);
      const info = await stat(path.join(dir, relPath));
      if (info.isDirectory()) await walk(relPath);
      else
        entries.push([
          relPath,
          createHash("sha256")
            .update(await readFile(path.join(dir, relPath)))
            .digest("hex"),
        ]);
    }
  }
  await walk("");
  return entries;
}

/** The differences between two digests, as lines a person can act on. */
export function compareDigests(expected, actual) {
  const want = new Map(expected);
  const have = new Map(actual);
  const lines = [];
  for (const [file, hash] of want) {
    if (!have.has(file)) lines.push(`missing from the committed bundle: ${file}`);
    else if (have.get(file) !== hash) lines.push(`differs from a build of the sources: ${file}`);
  }
  for (const file of have.keys()) if (!want.has(file)) lines.push(`not produced by the sources: ${file}`);
  return lines;
}

async function main(args) {
  if (args[0] === "--check") {
    const committed = path.resolve(args[1] ?? path.join(root, "action-dist"));
    const fresh = path.join(os.tmpdir(), `action-dist-check-${process.pid}`);
    await buildAction(fresh);
    const problems = compareDigests(await treeDigest(fresh), await treeDigest(committed));
    await rm(fresh, { recursive: true, force: true });
    if (problems.length > 0) {
      console.error(
        `${path.relative(root, committed)} is not what the sources build (${problems.length} files):\n` +
          problems.slice(0, 20).join("\n") +
          "\nRebuild it with `npm run build && node scripts/build-action.mjs` and commit the result.",
      );
      process.exitCode = 1;
      return;
    }
    console.log(`${path.relative(root, committed)} matches a build of the sources`);
    return;
  }
  const out = path.resolve(args[0] ?? path.join(root, "action-dist"));
  await buildAction(out);
  console.log(`built the Action's bundle in ${path.relative(root, out) || out}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  await main(process.argv.slice(2));
