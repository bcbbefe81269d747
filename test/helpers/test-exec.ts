import path from "node:path";
import type { ExecOptions } from "../../src/exec/create-exec.js";
import type { Exec } from "../../src/exec/types.js";
import { CLI_MAIN } from "./cli-entry.js";

// The built spawn helper (jest's global setup built it), as job processes, the CLI and the Action use it.
const built = path.join(path.dirname(CLI_MAIN), "../exec/spawn-helper.js");
const { startSpawnHelper } = (await import(built)) as typeof import("../../src/exec/spawn-helper.js");

let helper: ReturnType<typeof startSpawnHelper> | null = null;
// One helper per test file: ended with the file (jest keeps its worker process for the next one).
afterAll(() => {
  helper?.close();
  helper = null;
});

/**
 * An exec for tests (fixtures' git, the code under test's commands) whose processes a spawn helper starts, as in
 * the app. Starting processes from jest's worker, a large process running two test files' worth of work, blocked
 * it ~30 ms per process on a busy 2-core machine; the suite starts well over a thousand.
 */
export function testExec(options: ExecOptions): Exec {
  helper ??= startSpawnHelper({ PATH: process.env.PATH ?? "/usr/bin:/bin" });
  return helper.exec(options);
}
