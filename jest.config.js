import { TEST_TIMEOUT_MS } from "./test/helpers/timeouts.js";

/** ESM jest; TypeScript is stripped by esbuild (test/helpers/esbuild-transform.js), type-checking is `npm run typecheck`. */
export default {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  // Fixture trees hold test files of their own (an edit may create one): they are data, not our tests.
  testPathIgnorePatterns: ["/node_modules/", "<rootDir>/test/fixtures/"],
  extensionsToTreatAsEsm: [".ts"],
  // `#testkit/…` (package.json "imports", how src/cli/demo-command.ts reaches the testkit) from the testkit's sources.
  moduleNameMapper: { "^#testkit/(.*)\\.js$": "<rootDir>/testkit/$1", "^(\\.{1,2}/.*)\\.js$": "$1" },
  transform: { "^.+\\.ts$": "<rootDir>/test/helpers/esbuild-transform.js" },
  // CLI and e2e tests spawn the built app: build it once (if stale) before any test runs.
  globalSetup: "<rootDir>/test/helpers/build-once.js",
  // Tests that need bubblewrap, Redis or Podman skip where those are missing (test/helpers/needs.ts); the reporter
  // lists them, and the teardown ends the run with what to install.
  reporters: ["default", "<rootDir>/test/helpers/needs-reporter.js"],
  globalTeardown: "<rootDir>/test/helpers/print-skipped.js",
  // CI's main run notes which test files run the tools its fresh-machine run hides (scripts/tool-trace.mjs).
  setupFilesAfterEnv: ["<rootDir>/test/helpers/tool-trace-setup.js"],
  // Longer than any harness wait (test/helpers/timeouts.js), so a harness failure shows its own diagnostics.
  testTimeout: TEST_TIMEOUT_MS,
  // jest's default on a 2-core machine is one worker; most of a slow test's time is spent waiting on the processes
  // it started (the app, git, the job process), so two files at a time use the machine without starving either.
  maxWorkers: 2,
  // At the end of a run a worker's event loop is empty within a millisecond of jest's "end" (no handle left open), but
  // Node then disposes its heap (~0.8 GB by then: every module of the ~130 files it ran), which on this kind of VM takes
  // more than jest's default 500 ms; jest then killed it and printed "failed to exit gracefully". A worker held by a
  // leaked handle never exits, so it is still reported, 3 s later instead of 0.5 s.
  workerGracefulExitTimeout: 3000,
};
