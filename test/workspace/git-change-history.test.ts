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
  test("lists each commit's changed paths, newest first; the root commit (the whole tree) is left out", async () => {
    const dir = await makeRepo({ "a.ts": "1\n", "b.ts": "1\n" });
    made.push(dir);
    await writeFiles(dir, { "a.ts": "2\n", "c.ts": "1\n" });
    await sh(dir, ["add", "-A"]);
    await sh(dir, ["commit", "-q", "-m", "second"]);
    await writeFiles(dir, { "b.ts": "2\n" });
    await sh(dir, ["commit", "-qam", "third"]);
    expect(await git.changeHistory(dir)).toEqual([["b.ts"], ["a.ts", "c.ts"]]);
    expect(await git.changeHistory(dir, 1)).toEqual([["b.ts"]]);
  });

  test("a depth-1 clone has no history (its one commit lists every file); nor has a folder without commits", async () => {
    const dir = await makeRepo({ "a.ts": "1\n" });
    made.push(dir);
    await writeFiles(dir, { "b.ts": "1\n" });
    await sh(dir, ["add", "-A"]);
    await sh(dir, ["commit", "-q", "-m", "second"]);
    const clone = await mkdtemp(path.join(os.tmpdir(), "ws-shallow-"));
    made.push(clone);
    await sh(clone, ["clone", "-q", "--depth", "1", `file://${dir}`, "."]);
    expect(await git.changeHistory(clone)).toEqual([]);
    const empty = await mkdtemp(path.join(os.tmpdir(), "ws-empty-"));
    made.push(empty);
    await sh(empty, ["init", "-q"]);
    expect(await git.changeHistory(empty)).toEqual([]);
  });

  test("a depth-1 clone made here is known to have no history: no git process asks, until a commit adds some", async () => {
    const dir = await makeRepo({ "a.ts": "1\n" });
    made.push(dir);
    await writeFiles(dir, { "b.ts": "1\n" });
    await sh(dir, ["add", "-A"]);
    await sh(dir, ["commit", "-q", "-m", "second"]);
    const clone = path.join(await mkdtemp(path.join(os.tmpdir(), "ws-shallow-")), "checkout");
    made.push(path.dirname(clone));
    const logs: string[] = [];
    const counting = createGit({
      ...exec,
      run: (req) => (req.args?.includes("log") && logs.push("log"), exec.run(req)),
    });
    const branch = (await sh(dir, ["symbolic-ref", "--short", "HEAD"])).trim();
    await counting.clone({ url: `file://${dir}`, branch, dir: clone, depth: 1 });
    await counting.createBranch(clone, "work");
    expect(await counting.changeHistory(clone)).toEqual([]);
    expect(logs).toEqual([]);
    await writeFiles(clone, { "c.ts": "1\n" });
    await counting.commit(clone, { paths: ["c.ts"], subject: "third" });
    expect(await counting.changeHistory(clone)).toEqual([["c.ts"]]);
    expect(logs).toEqual(["log"]);
  });

  test("parseChangeHistory reads git's records", () => {
    expect(
      parseChangeHistory("\x1eabc123\n\nsrc/a.ts\nsrc/b.ts\n\x1edef456 0a1b2c\n\nREADME.md\n\x1e\n\nall.ts\n"),
    ).toEqual([["src/a.ts", "src/b.ts"], ["README.md"]]);
    expect(parseChangeHistory("")).toEqual([]);
  });
});
