import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { discoverChecks } from "../../../src/checks/discover/discover-checks.js";
import { withBootstrap } from "../../../src/checks/discover/nightly-rust.js";
import { runCheckCommand } from "../../../src/checks/run-check-command.js";
import { createExec } from "../../../src/exec/create-exec.js";
import { createLocalRepoReader } from "../../../src/workspace/local-repo-reader.js";
import { describeWith } from "../../helpers/needs.js";

/** dtolnay/itoa's CI at 018fd93 (the replay benchmark's itoa-6b06fb0), trimmed to the parts discovery reads. */
const ITOA_CI = `name: CI
on: [push, pull_request]
jobs:
  test:
    name: Rust \${{matrix.rust}}
    runs-on: ubuntu-latest
    strategy:
      fail-fast: false
      matrix:
        rust: [nightly, beta, stable, 1.36.0]
    steps:
      - uses: actions/checkout@v2
      - uses: dtolnay/rust-toolchain@master
        with:
          toolchain: \${{matrix.rust}}
      - run: cargo build
      - run: cargo test
      - run: cargo bench --no-run
        if: matrix.rust == 'nightly'
`;

/** A crate whose benchmark only nightly builds (`#![feature(test)]`), as itoa's: `broken` leaves a macro half-edited. */
async function writeCrate(dir: string, broken = false): Promise<void> {
  await mkdir(path.join(dir, ".github", "workflows"), { recursive: true });
  await mkdir(path.join(dir, "src"), { recursive: true });
  await mkdir(path.join(dir, "benches"), { recursive: true });
  await writeFile(path.join(dir, ".github", "workflows", "ci.yml"), ITOA_CI);
  await writeFile(
    path.join(dir, "Cargo.toml"),
    '[package]\nname = "nightly_bench"\nversion = "0.1.0"\nedition = "2018"\n\n[dependencies]\n',
  );
  await writeFile(path.join(dir, "src", "lib.rs"), "pub fn double(x: u32) -> u32 {\n    x * 2\n}\n");
  // The matcher no longer captures `attr`; the broken body still repeats it (the hunk a model left out).
  const attr = broken ? "$(#[$attr])*\n            " : "";
  await writeFile(
    path.join(dir, "benches", "bench.rs"),
    `#![feature(test)]
extern crate test;

macro_rules! benches {
    ($($name:ident($value:expr)),*) => {
        $(
            ${attr}#[bench]
            fn $name(b: &mut test::Bencher) {
                b.iter(|| nightly_bench::double(test::black_box($value)));
            }
        )*
    };
}

benches!(one(1), two(2));
`,
  );
}

describe("nightly Rust in CI, a stable toolchain in the sandbox", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "nightly-rust-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("plans CI's `cargo bench --no-run` as a build check, every cargo command with RUSTC_BOOTSTRAP=1 and a note", async () => {
    await writeCrate(dir);
    const plan = await discoverChecks(createLocalRepoReader(dir));
    expect(plan.toolchain.rust).toBe("nightly");
    expect(plan.lint.map((c) => c.command)).toEqual([
      "RUSTC_BOOTSTRAP=1 cargo build",
      "RUSTC_BOOTSTRAP=1 cargo bench --no-run",
    ]);
    expect(plan.test.map((c) => c.command)).toEqual(["RUSTC_BOOTSTRAP=1 cargo test"]);
    for (const c of [...plan.lint, ...plan.test]) expect(c.note).toContain("`nightly` Rust toolchain");
    expect(plan.excluded.map((e) => e.what).join("\n")).not.toContain("cargo bench");
  });

  it("leaves a stable toolchain's commands as CI wrote them", async () => {
    await writeCrate(dir);
    const stable = ITOA_CI.replace("[nightly, beta, stable, 1.36.0]", "[stable]");
    await writeFile(path.join(dir, ".github", "workflows", "ci.yml"), stable);
    const plan = await discoverChecks(createLocalRepoReader(dir));
    expect(plan.lint.map((c) => c.command)).toEqual(["cargo build"]);
    expect([...plan.lint, ...plan.test].some((c) => c.note)).toBe(false);
  });

  it.each([
    ["cargo test", "RUSTC_BOOTSTRAP=1 cargo test"],
    ["RUSTFLAGS=-Dwarnings cargo check", "RUSTFLAGS=-Dwarnings RUSTC_BOOTSTRAP=1 cargo check"],
    [
      "export RUSTFLAGS=-Dwarnings; cd serde && cargo build",
      "export RUSTC_BOOTSTRAP=1; export RUSTFLAGS=-Dwarnings; cd serde && cargo build",
    ],
    ["cd tests\ncargo test", "export RUSTC_BOOTSTRAP=1; cd tests\ncargo test"],
    ["RUSTC_BOOTSTRAP=0 cargo test", "RUSTC_BOOTSTRAP=0 cargo test"],
    ["npm test", "npm test"],
    ["./scripts/cargo-check.sh", "./scripts/cargo-check.sh"],
  ])("%j → %j", (command, expected) => {
    expect(withBootstrap(command)).toBe(expected);
  });
});

describeWith("cargo", "a nightly-only benchmark built by the host's stable cargo (real cargo, offline)", () => {
  let dir: string;
  const exec = createExec({ sourceEnv: { PATH: process.env.PATH, HOME: process.env.HOME } });
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "nightly-rust-cargo-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const bench = async () => {
    const plan = await discoverChecks(createLocalRepoReader(dir));
    const command = plan.lint.find((c) => c.command.includes("bench"))!.command;
    return runCheckCommand(exec, { kind: "lint", command: `${command} --offline`, cwd: dir, timeoutMs: 300_000 });
  };

  it("builds where CI's nightly would, and fails on the half-edited macro with the compiler's own error", async () => {
    await writeCrate(dir);
    expect(await bench()).toMatchObject({ ok: true });
    await writeCrate(dir, true);
    const broken = await bench();
    expect(broken.ok).toBe(false);
    expect(broken.output).toContain("no syntax variables matched as repeating at this depth");
    expect(broken.output).not.toContain("may not be used on the stable release channel");
  }, 300_000);
});
