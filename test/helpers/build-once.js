/**
 * jest globalSetup: the CLI and e2e tests run the built app (`node dist/cli/main.js`), as users do, instead of
 * compiling the TypeScript on every spawn. Build once when dist is missing or older than any file under src/ or testkit/ (CI
 * builds before testing, so there this only checks mtimes). Plain JS: it runs before any transform is set up.
 */
import { execFileSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

function builtMtime() {
  try {
    return statSync(path.join(root, "dist/cli/main.js")).mtimeMs;
  } catch {
    return -1; // never built
  }
}

export default async function buildOnce() {
  // One App key for every end-to-end app of the run (read by e2e-harness): generating a 2048-bit RSA key costs
  // 0.1–0.3 s of CPU, and the suite starts a few dozen apps. A file, not an environment variable, so no process a
  // test starts inherits it.
  mkdirSync(path.dirname(TEST_APP_KEY), { recursive: true });
  const key = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  writeFileSync(TEST_APP_KEY, key.privateKey, { mode: 0o600 });
  await buildTestScripts();
  const sources = Math.max(newestMtime(path.join(root, "src")), newestMtime(path.join(root, "testkit")));
  if (builtMtime() >= sources) return;
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  // As `npm run build`: the testkit first (dist/testkit, which the demo command imports), then the app.
  for (const config of ["tsconfig.testkit.json", "tsconfig.build.json"]) {
    try {
      execFileSync(process.execPath, [tsc, "-p", config], { cwd: root, stdio: "pipe" });
    } catch (error) {
      const out = `${error.stdout ?? ""}${error.stderr ?? ""}`;
      // tsc still emits JavaScript when only types are wrong: the tests can run (as they did from source), and
      // `npm run typecheck` reports the errors. Without an emitted CLI there is nothing to run.
      if (builtMtime() < 0 && config === "tsconfig.build.json")
        throw new Error(
          `the CLI and e2e tests need dist/, and \`npm run build\` failed: fix the errors below and re-run.\n${out}`,
        );
      process.stderr.write(
        `\nnpm run build reported errors (the tests run the JavaScript it emitted anyway):\n${out}\n`,
      );
    }
  }
  // The build's second step, as `npm run build` runs it: the entries Node starts from, bundled.
  const { bundle } = await import("../../scripts/bundle.mjs");
  await bundle();
}

/** The run's App key for the end-to-end apps, written by the global setup. */
export const TEST_APP_KEY = path.join(root, "node_modules/.cache/aider-bot/test-app-key.pem");

/** Test scripts started as processes of their own (test/helpers/spawn-script.ts), and where they are built to. */
export const TEST_SCRIPTS = [
  "test/fixtures/jobs/engine-worker.ts",
  "test/fixtures/jobs/child-job.ts",
  "test/fixtures/jobs/two-stores.ts",
];
export const builtScript = (script) =>
  path.join(root, "node_modules/.cache/aider-bot/test-scripts", path.basename(script).replace(/\.ts$/, ".mjs"));

/**
 * Build the test scripts to plain JavaScript (esbuild, ~0.1 s), so each spawn starts Node on a file instead of
 * compiling TypeScript through tsx (about 1 s of CPU per process; the engine tests start dozens). child-job is the job
 * module the fork-worker tests hand to job processes.
 */
async function buildTestScripts() {
  const { build } = await import("esbuild");
  await Promise.all(
    TEST_SCRIPTS.map((script) =>
      build({
        absWorkingDir: root,
        entryPoints: [path.join(root, script)],
        outfile: builtScript(script),
        bundle: true,
        packages: "external",
        platform: "node",
        target: "node20",
        format: "esm",
        logLevel: "warning",
      }),
    ),
  );
}
