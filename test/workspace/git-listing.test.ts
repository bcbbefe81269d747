import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Exec, ExecRequest } from "../../src/exec/types.js";
import { createFsWorkspace } from "../../src/workspace/create-fs-workspace.js";
import { gitContentIds } from "../../src/workspace/git-content-ids.js";
import { parseTaggedListing } from "../../src/workspace/git-listing.js";
import { exec, makeRepo } from "./git-fixtures.js";

function countingExec(): { exec: Exec; calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    exec: {
      run(req: ExecRequest) {
        if (req.command === "git") calls.push([...(req.args ?? [])]);
        return exec.run(req);
      },
    },
  };
}

describe("the workspace's shared git listing", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await makeRepo({ "a.ts": "export const a = 1;\n", "b.ts": "export const b = 2;\n", ".gitignore": "*.log\n" });
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("answers the file list, the index's ids and the modified files from one git process until something changes", async () => {
    await writeFile(path.join(dir, "b.ts"), "export const b = 3;\n");
    await writeFile(path.join(dir, "untracked.ts"), "x\n");
    await writeFile(path.join(dir, "skip.log"), "x\n");
    const counted = countingExec();
    const ws = createFsWorkspace(dir, counted.exec);
    expect(await ws.listFiles()).toEqual([".gitignore", "a.ts", "b.ts", "untracked.ts"]);
    const ids = await ws.indexContentIds!();
    expect(await ws.listFiles()).toEqual([".gitignore", "a.ts", "b.ts", "untracked.ts"]);
    expect(counted.calls).toHaveLength(1);
    // The same answer the separate `ls-files -s` / `ls-files -m` gave.
    const clean = await gitContentIds(exec, dir);
    const modified = await ids!.modified;
    expect([...(modified ?? [])]).toEqual(["b.ts"]);
    expect(new Map([...ids!.indexIds].filter(([rel]) => !modified!.has(rel)))).toEqual(clean);
  });

  it("lists again after a write or an invalidation (a repository command may have made files)", async () => {
    const counted = countingExec();
    const ws = createFsWorkspace(dir, counted.exec);
    await ws.listFiles();
    await ws.write(new Map([["c.ts", "export const c = 1;\n"]]));
    expect(await ws.listFiles()).toContain("c.ts");
    await writeFile(path.join(dir, "from-a-script.ts"), "x\n");
    expect(await ws.listFiles()).not.toContain("from-a-script.ts");
    ws.invalidate!();
    expect(await ws.listFiles()).toContain("from-a-script.ts");
    expect(counted.calls).toHaveLength(3);
  });

  it("keeps the tracked files of its first listing, with no process of their own, after later listings", async () => {
    const counted = countingExec();
    const ws = createFsWorkspace(dir, counted.exec);
    expect([...(await ws.trackedFiles!())!].sort()).toEqual([".gitignore", "a.ts", "b.ts"]);
    await ws.write(new Map([["c.ts", "export const c = 1;\n"]]));
    expect(await ws.listFiles()).toContain("c.ts");
    expect([...(await ws.trackedFiles!())!].sort()).toEqual([".gitignore", "a.ts", "b.ts"]);
    expect(counted.calls).toHaveLength(2);
  });
});

describe("parseTaggedListing", () => {
  it("cannot be fooled by an untracked file named like a tracked entry", () => {
    const fake = "100644 1111111111111111111111111111111111111111 0\tb.ts";
    const out = [
      `? ${fake}`,
      "H 100644 2222222222222222222222222222222222222222 0\ta.ts",
      "H 120000 3333333333333333333333333333333333333333 0\tlink",
      "M 100644 4444444444444444444444444444444444444444 2\tconflict.ts",
      "C 100644 2222222222222222222222222222222222222222 0\ta.ts",
      "",
    ].join("\0");
    const got = parseTaggedListing(out);
    expect(got.files).toEqual([fake, "a.ts", "conflict.ts", "link"].sort());
    expect([...got.indexIds]).toEqual([["a.ts", "2222222222222222222222222222222222222222"]]);
    expect([...got.modified]).toEqual(["a.ts"]);
    expect([...got.tracked].sort()).toEqual(["a.ts", "conflict.ts", "link"]);
  });
});
