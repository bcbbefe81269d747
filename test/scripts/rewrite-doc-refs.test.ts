import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

// The outside documents' names and markers are assembled, so the script (run over test/) leaves these fixtures alone.
const AIDER = ["AIDER", "md"].join(".");
const DESIGN = ["DESIGN", "md"].join(".");
const STACK = ["STACK", "md"].join(".");
const S = "\u00a7";
const A = (n: number) => ["A", String(n)].join(".");
const BUG = (n: number) => ["8.2", `#${n}`].join(" ");

const SCRIPT = path.resolve("scripts/rewrite-doc-refs.mjs");

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "doc-refs-"));
  await mkdir(path.join(root, "src", "edits"), { recursive: true });
  await mkdir(path.join(root, "test"), { recursive: true });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const run = (...args: string[]) =>
  new Promise<{ exitCode: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [SCRIPT, "--root", root, ...args], (error, stdout, stderr) => resolve({ exitCode: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr }));
  });

describe("scripts/rewrite-doc-refs.mjs", () => {
  it.each([
    [`/** Walk the ladder (${AIDER} ${S}2.1.2, ${A(9)}). */`, "/** Walk the ladder (docs/behaviour.md#rungs, docs/behaviour.md#extra-tolerant-rungs). */"],
    [`// never the first match (${AIDER} ${A(7)}, ${A(8)})`, "// never the first match (docs/behaviour.md#ambiguous-matches-are-refused, docs/behaviour.md#deterministic-cross-file-retry)"],
    [` * then the tests (${AIDER} ${S}0 steps 9–11).`, " * then the tests (docs/behaviour.md#checks)."],
    [` * stop instead (${AIDER} ${BUG(16)}).`, " * stop instead (docs/behaviour.md#aider-bugs-we-avoid (#16))."],
    [` * dropped (${A(14)} / ${S}${BUG(22)}: kept)`, " * dropped (docs/behaviour.md#files-the-model-asks-for / docs/behaviour.md#aider-bugs-we-avoid (#22): kept)"],
    [` * with fixes ${A(1)}–${A(3)}).`, " * with fixes docs/behaviour.md#where-we-differ-from-aider)."],
    [`/** The command line (${DESIGN} ${S}4). */`, "/** The command line (docs/architecture.md#layout). */"],
    [` * as a CGI program (${STACK} "Git"). Request`, " * as a CGI program (docs/architecture.md#stack). Request"],
    [`describe("${AIDER} ${A(1)}: prose is not a filename", () => {});`, 'describe("docs/behaviour.md#prose-is-not-a-filename: prose is not a filename", () => {});'],
    [`// Aider ${S}1.1 and ${S}1.1 again`, "// Aider docs/behaviour.md#fences again"],
    // Not citations: left as they are.
    ["const floor = 0.9; // Aider #3645, version 1.2", "const floor = 0.9; // Aider #3645, version 1.2"],
  ])("%s", async (line, expected) => {
    const file = path.join(root, "src", "edits", "a.ts");
    await writeFile(file, `${line}\n`);
    const first = await run();
    expect(first.exitCode).toBe(0);
    expect(await readFile(file, "utf8")).toBe(`${expected}\n`);
  });

  it("joins a citation split over two comment lines", async () => {
    const file = path.join(root, "test", "b.test.ts");
    await writeFile(file, `/**\n * written even when others failed (partial success, ${AIDER}\n * ${S}1.5); the rest\n */\n`);
    await run();
    expect(await readFile(file, "utf8")).toBe("/**\n * written even when others failed (partial success,\n * docs/behaviour.md#applying-edits); the rest\n */\n");
  });

  it("prints what it changed, is idempotent, and --check fails only while an outside citation remains", async () => {
    const file = path.join(root, "src", "edits", "a.ts");
    await writeFile(file, `// one (${AIDER} ${S}2.3)\nconst x = 1;\n// two (${A(12)})\n`);

    const before = await run("--check");
    expect(before.exitCode).toBe(1);
    expect(before.stdout).toContain("src/edits/a.ts:1: cites");
    expect(await readFile(file, "utf8")).toContain(AIDER); // --check changes nothing

    const first = await run();
    expect(first.stdout).toContain(`- // one (${AIDER} ${S}2.3)`);
    expect(first.stdout).toContain("+ // one (docs/behaviour.md#whole-files)");
    expect(first.stdout).toContain("2 line(s) rewritten.");
    const rewritten = await readFile(file, "utf8");

    const second = await run();
    expect(second.stdout).toContain("0 line(s) rewritten.");
    expect(await readFile(file, "utf8")).toBe(rewritten);
    expect((await run("--check")).exitCode).toBe(0);
  });

  it("cites only sections that docs/behaviour.md has", async () => {
    await writeFile(path.join(root, "src", "edits", "a.ts"), `// (${A(5)})\n`);
    await mkdir(path.join(root, "docs"));
    await writeFile(path.join(root, "docs", "behaviour.md"), "# Behaviour\n\n### Something else\n");
    expect((await run()).stdout).toContain("docs/behaviour.md has no section for: #newlines-and-line-endings");
  });

  it("every section the script cites exists in this repository's docs/behaviour.md", async () => {
    // Every anchor the script can produce, cited once each, checked against the real document.
    const refs = [0, 1, 2, 3, 4, 5, 6, 8, 9].map((n) => `${S}${n}`);
    const subs = ["1.1", "1.3", "1.5", "2.1.1", "2.1.2", "2.1.3", "2.2", "2.3", "2.4", "2.5", "4.4", "5.2", "5.3", "5.4", "5.6", "5.7"];
    const lines = [...refs, ...subs.map((n) => `${S}${n}`), ...Array.from({ length: 18 }, (_, i) => A(i + 1)), `${S}0 step 4`, `${S}3 trigger 1`];
    await writeFile(path.join(root, "src", "edits", "a.ts"), lines.map((l) => `// (${AIDER} ${l})`).join("\n"));
    await mkdir(path.join(root, "docs"));
    await writeFile(path.join(root, "docs", "behaviour.md"), await readFile("docs/behaviour.md", "utf8"));
    const out = await run();
    expect(out.stdout).not.toContain("has no section");
    expect(out.stdout).toContain(`${lines.length} line(s) rewritten.`);
  });
});
