import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { discoverChecks } from "../../../src/checks/discover/discover-checks.js";
import type { RepoReader } from "../../../src/checks/discover/types.js";

/** A repository of one workflow file, read from memory. */
const reader = (workflow: string): RepoReader => ({
  list: async (dir) => (dir === ".github/workflows" ? ["ci.yml"] : []),
  read: async (p) => (p === ".github/workflows/ci.yml" ? workflow : null),
});

const WORKFLOW = `on: [push, pull_request]
jobs:
  build-clang:
    runs-on: ubuntu-latest
    env:
      CC: clang
    steps:
      - uses: actions/checkout@v4
      - run: make -C tests clean ; make -C tests pedantic
      - run: make -C tests CFLAGS=-DCC_$CC
      - run: make -C tests
`;

describe("a job's env: on a step's command", () => {
  let bin: string;
  beforeAll(() => {
    // A make that prints what it was given: the compiler from its environment and its arguments.
    bin = mkdtempSync(path.join(os.tmpdir(), "workflow-env-"));
    writeFileSync(path.join(bin, "make"), '#!/bin/sh\necho "CC=$CC args=$*"\n');
    chmodSync(path.join(bin, "make"), 0o755);
  });
  afterAll(() => rmSync(bin, { recursive: true, force: true }));

  /** The command as the runner runs a discovered one (bash -e), with the fake make first on PATH. */
  const run = (command: string) =>
    execFileSync("bash", ["-e", "-c", command], {
      encoding: "utf8",
      env: { PATH: `${bin}:${process.env.PATH ?? ""}` },
    });

  it("reaches every command of a step's list and the step's own $VAR, as on the runner", async () => {
    const plan = await discoverChecks(reader(WORKFLOW));
    const [list, expanded, simple] = plan.test.map((c) => c.command);
    expect(run(list!)).toBe("CC=clang args=-C tests clean\nCC=clang args=-C tests pedantic\n");
    expect(run(expanded!)).toBe("CC=clang args=-C tests CFLAGS=-DCC_clang\n");
    // A single plain command keeps the short form that reads as the workflow does.
    expect(simple).toBe("CC=clang make -C tests");
    expect(run(simple!)).toBe("CC=clang args=-C tests\n");
  });
});
