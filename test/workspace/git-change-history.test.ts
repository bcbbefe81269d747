import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createGit } from "../../src/workspace/create-git.js";
import { parseChangeHistory } from "../../src/workspace/git-change-history.js";
import { exec, makeRepo, sh, writeFiles } from "./git-fixtures.js";

const git = createGit(exec);
const made: string[] = [];
afterEach(async () => {
  for (const d of made.splice(0)) await rm(d, { recursive: true, force: true });
});

describe("changeHistory", () => {
  test("lists each commit's changed paths, newest first, merges left out", async () => {
    const dir = await makeRepo({ "a.ts": "1\n", "b.ts": "1\n" });
    made.push(dir);
    await writeFiles(dir, { "a.ts": "2\n", "c.ts": "1\n" });
    await sh(dir, ["add", "-A"]);
    await sh(dir, ["commit", "-q", "-m", "second"]);
    expect(await git.changeHistory(dir)).toEqual([
      ["a.ts", "c.ts"],
      ["a.ts", "b.ts"],
    ]);
    expect(await git.changeHistory(dir, 1)).toEqual([["a.ts", "c.ts"]]);
  });

  test("a depth-1 clone has one commit listing every file; a folder without commits gives []", async () => {
    const dir = await makeRepo({ "a.ts": "1\n" });
    made.push(dir);
    await writeFiles(dir, { "b.ts": "1\n" });
    await sh(dir, ["add", "-A"]);
    await sh(dir, ["commit", "-q", "-m", "second"]);
    const clone = await mkdtemp(path.join(os.tmpdir(), "ws-shallow-"));
    made.push(clone);
    await sh(clone, ["clone", "-q", "--depth", "1", `file://${dir}`, "."]);
    expect(await git.changeHistory(clone)).toEqual([["a.ts", "b.ts"]]);
    const empty = await mkdtemp(path.join(os.tmpdir(), "ws-empty-"));
    made.push(empty);
    await sh(empty, ["init", "-q"]);
    expect(await git.changeHistory(empty)).toEqual([]);
  });

  test("parseChangeHistory reads git's records", () => {
    expect(parseChangeHistory("\x1e\n\nsrc/a.ts\nsrc/b.ts\n\x1e\n\nREADME.md\n")).toEqual([["src/a.ts", "src/b.ts"], ["README.md"]]);
    expect(parseChangeHistory("")).toEqual([]);
  });
});
