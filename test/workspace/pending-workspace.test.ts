import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { createFsWorkspace } from "../../src/workspace/create-fs-workspace.js";
import type { PendingCheckout } from "../../src/workspace/pending-checkout.js";
import { exec, makeRepo, sh } from "./git-fixtures.js";

/** A pending checkout of `commit` whose writing the test ends (`done(true)`: written; `done(false)`: replaced). */
function pendingOf(commit: string): PendingCheckout & { done(same: boolean): void; fail(error: Error): void } {
  let done!: (same: boolean) => void;
  let fail!: (error: Error) => void;
  const written = new Promise<boolean>((resolve, reject) => ((done = resolve), (fail = reject)));
  written.catch(() => undefined);
  return { commit, written, done, fail };
}

/** The test's exec, noting each git subcommand it runs in `asked`. */
function recordingExec(): { asked: string[]; recording: typeof exec } {
  const asked: string[] = [];
  const recording = {
    ...exec,
    run: (req: Parameters<typeof exec.run>[0]) => (asked.push(req.args?.[0] ?? ""), exec.run(req)),
  };
  return { asked, recording };
}

/** Every macrotask queued so far has run: what the code under test could do without waiting has been done. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("a workspace whose checkout is still being written", () => {
  let root: string;
  let head: string;
  beforeEach(async () => {
    root = await makeRepo({ "a.txt": "a\n", "src/b.ts": "export const b = 1;\n" });
    head = (await sh(root, ["rev-parse", "HEAD"])).trim();
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  // Reads of this tree's files may come from git's blobs meanwhile (next test), so only the write's order is fixed here.
  it("lists the commit's tree meanwhile, and writes only once the files are written", async () => {
    const pending = pendingOf(head);
    const ws = createFsWorkspace(root, exec, { pending });
    expect(await ws.listFiles()).toEqual(["a.txt", "src/b.ts"]);
    expect((await ws.indexContentIds!())!.indexIds.get("a.txt")).toBe(
      (await sh(root, ["rev-parse", "HEAD:a.txt"])).trim(),
    );
    // Nothing to read: no wait.
    expect((await ws.read([])).files.size).toBe(0);
    const events: string[] = [];
    const read = ws.read(["a.txt"]);
    const write = ws.write(new Map([["c.txt", "c\n"]])).then(() => void events.push("wrote"));
    await settle();
    events.push("written");
    pending.done(true);
    await write;
    expect(events).toEqual(["written", "wrote"]);
    expect((await read).files.get("a.txt")).toBe("a\n");
  });

  it("reads the next round's files from git's blobs while the files are written; writes still wait for them", async () => {
    const pending = pendingOf(head);
    const { asked, recording } = recordingExec();
    const ws = createFsWorkspace(root, recording, { pending });
    // The work tree says otherwise: what is read meanwhile is the commit's, from git, not a file on disk.
    await writeFile(path.join(root, "a.txt"), "on disk\n");
    const snapshot = await ws.read(["a.txt", "src/b.ts"]);
    expect(snapshot.files.get("a.txt")).toBe("a\n");
    expect(snapshot.files.get("src/b.ts")).toBe("export const b = 1;\n");
    // Read again (the round's request, then its edit): no more git processes.
    expect((await ws.read(["a.txt"])).files.get("a.txt")).toBe("a\n");
    expect(asked).toEqual(["ls-tree", "cat-file"]);
    const events: string[] = [];
    const write = ws.write(new Map([["c.txt", "c\n"]])).then(() => void events.push("wrote"));
    await settle();
    events.push("written");
    pending.done(true);
    await write;
    expect(events).toEqual(["written", "wrote"]);
    // Written: the files are read as they are.
    expect((await ws.read(["a.txt"])).files.get("a.txt")).toBe("on disk\n");
  });

  it("waits for the files for a path that is no regular file of the tree, or a tree with .gitattributes", async () => {
    await writeFile(path.join(root, ".gitattributes"), "*.txt text eol=crlf\n");
    await sh(root, ["add", ".gitattributes"]);
    await sh(root, ["commit", "-q", "-m", "attributes"]);
    const attributed = (await sh(root, ["rev-parse", "HEAD"])).trim();
    for (const [commit, paths] of [
      [head, ["a.txt", "missing.txt"]],
      [attributed, ["a.txt"]],
    ] as const) {
      const pending = pendingOf(commit);
      // No blob is read for them: the read waits for the written files.
      const { asked, recording } = recordingExec();
      const ws = createFsWorkspace(root, recording, { pending });
      const events: string[] = [];
      const read = ws.read(paths).then(() => void events.push("read"));
      await ws.listFiles();
      await settle();
      events.push("written");
      pending.done(true);
      await read;
      expect(events).toEqual(["written", "read"]);
      expect(asked).not.toContain("cat-file");
    }
  });

  it("drops the tree's listing when another checkout replaced the one being written", async () => {
    const pending = pendingOf(head);
    const ws = createFsWorkspace(root, exec, { pending });
    expect(await ws.listFiles()).toEqual(["a.txt", "src/b.ts"]);
    expect(await ws.trackedFiles!()).toEqual(new Set(["a.txt", "src/b.ts"]));
    // What the replacing checkout holds differs from the tree that was listed.
    await writeFile(path.join(root, "new.txt"), "new\n");
    pending.done(false);
    await pending.written;
    expect(await ws.listFiles()).toEqual(["a.txt", "new.txt", "src/b.ts"]);
  });

  it("a checkout that could not be written fails what needs its files, with the clone's error", async () => {
    const pending = pendingOf(head);
    const ws = createFsWorkspace(root, exec, { pending });
    pending.fail(new Error("git clone failed: repository not found"));
    await expect(ws.read(["a.txt"])).rejects.toThrow("git clone failed: repository not found");
    await expect(ws.write(new Map([["c.txt", "c\n"]]))).rejects.toThrow("repository not found");
  });
});
