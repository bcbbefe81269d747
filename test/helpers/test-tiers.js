/**
 * Which test files belong to the unit tier (`npm run test:unit`): those that start no process and open no socket.
 * Decided mechanically from each file's text, so a new test lands in the right tier without a list to keep: a file is
 * left out when it lies in a folder of process-level tests or names one of the helpers or APIs that start processes,
 * servers or connections. test/helpers/unit-guard.js backs the rule at run time: a unit test that starts a process
 * or opens a socket anyway fails, naming what to do.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** Folders whose every test starts processes: the built app end to end, and the sandbox and spawn layer. */
const PROCESS_FOLDERS = ["test/e2e/", "test/exec/", "test/scripts/"];

/** What a test file names when it starts a process, a server or a connection (directly or through a helper). */
export const PROCESS_MARKERS = [
  /node:child_process|from "child_process"/, // spawns itself
  /helpers\/(test-exec|run-cli|cli-entry|e2e-harness|git-http-server|scripted-llm-server|spawn-script|podman-test-image|process-probe|needs|raw-post|scrape-metrics)\.js/,
  /\bcreateExec\(|\bstartSpawnHelper\(|\bcreateGit\(|\bforkWorker\(|\bcreateSandbox/, // the app's own process doors
  /\.listen\(|\bcreateServer\(|\bnet\.connect\(|\bfetch\(/, // servers and connections
  /\bioredis\b|\bbullmq\b|redis-server/,
];

/** Test files under `root`'s test/ folder (repository-relative, `/`-separated), fixtures left out. */
function testFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const e of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) {
        if (rel !== "test/fixtures") walk(rel);
      } else if (e.name.endsWith(".test.ts")) out.push(rel);
    }
  };
  walk("test");
  return out.sort();
}

/**
 * The test-side files `file` imports (relative imports that stay under test/ or testkit/), by repository-relative
 * path. The testkit is followed like a helper: its servers name `createServer(`/`.listen(` and its git runner names
 * node:child_process, while its builders name neither and keep a unit test in the unit tier.
 */
function localImports(root, file, text) {
  const out = [];
  for (const m of text.matchAll(/from\s+"(\.{1,2}\/[^"]+)"/g)) {
    const rel = path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1]));
    if (!rel.startsWith("test/") && !rel.startsWith("testkit/")) continue;
    for (const candidate of [rel.replace(/\.js$/, ".ts"), rel]) {
      try {
        readFileSync(path.join(root, candidate));
        out.push(candidate);
        break;
      } catch {
        // not this extension
      }
    }
  }
  return out;
}

/**
 * Whether a test file (repository-relative) starts processes or opens sockets, by the rules above: its folder, or a
 * marker in its text or in any test helper it imports, however indirectly.
 */
export function isProcessTest(root, file) {
  if (PROCESS_FOLDERS.some((f) => file.startsWith(f))) return true;
  const seen = new Set();
  const visit = (f) => {
    if (seen.has(f)) return false;
    seen.add(f);
    const text = readFileSync(path.join(root, f), "utf8");
    return PROCESS_MARKERS.some((m) => m.test(text)) || localImports(root, f, text).some(visit);
  };
  return visit(file);
}

/** The unit tier's files and the others, each list repository-relative. */
export function testTiers(root) {
  const unit = [];
  const process = [];
  for (const f of testFiles(root)) (isProcessTest(root, f) ? process : unit).push(f);
  return { unit, process };
}
