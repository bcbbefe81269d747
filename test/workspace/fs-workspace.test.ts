import { mkdtemp, mkdir, readFile, readdir, rm, stat, symlink, writeFile, chmod } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createExec } from "../../src/exec/create-exec.js";
import { createFsWorkspace } from "../../src/workspace/create-fs-workspace.js";
import { UnsafePathError } from "../../src/workspace/unsafe-path-error.js";

describe("fs workspace", () => {
  let root: string;
  let outside: string;
  const exec = createExec({ sourceEnv: process.env });

  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "ws-"));
    outside = await mkdtemp(path.join(os.tmpdir(), "outside-"));
    await writeFile(path.join(outside, "secret.txt"), "secret\n");
    await mkdir(path.join(root, "src"));
    await mkdir(path.join(root, ".git"));
    await writeFile(path.join(root, ".git", "config"), "[core]\n");
    await writeFile(path.join(root, "src", "a.ts"), "a\r\nb\r\n");
    await writeFile(path.join(root, "bin.dat"), Buffer.from([1, 2, 0, 3]));
    await writeFile(path.join(root, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    await symlink(outside, path.join(root, "out-dir"));
    await symlink(path.join(outside, "secret.txt"), path.join(root, "out-file.txt"));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it.each([
    ["/etc/passwd", "unsafe-path"],
    ["../x.txt", "unsafe-path"],
    [".git/config", "unsafe-path"],
    ["out-dir/secret.txt", "unsafe-path"],
    ["out-file.txt", "unsafe-path"],
    ["bin.dat", "unreadable"],
    ["latin1.txt", "unreadable"],
  ])("read refuses %s as %s", async (p, reason) => {
    const ws = createFsWorkspace(root, exec);
    const snap = await ws.read([p]);
    expect(snap.files.has(p)).toBe(false);
    expect(snap.problems?.get(p)?.reason).toBe(reason);
  });

  it("reads content raw (CRLF kept) and treats missing files as absent", async () => {
    const snap = await createFsWorkspace(root, exec).read(["src/a.ts", "missing.ts"]);
    expect(snap.files.get("src/a.ts")).toBe("a\r\nb\r\n");
    expect(snap.files.has("missing.ts")).toBe(false);
    expect(snap.problems?.size).toBe(0);
  });

  it.each([["../escape.txt"], ["out-dir/new.txt"], [".git/hooks/pre-commit"], [".github/workflows/ci.yml"]])(
    "write refuses %s and writes nothing",
    async (p) => {
      const ws = createFsWorkspace(root, exec);
      await expect(ws.write(new Map([[p, "x"]]))).rejects.toBeInstanceOf(UnsafePathError);
      expect(await readdir(outside)).toEqual(["secret.txt"]);
    },
  );

  it("writes atomically into new folders, keeps modes, deletes, leaves no temp files", async () => {
    await chmod(path.join(root, "src", "a.ts"), 0o755);
    const ws = createFsWorkspace(root, exec);
    await ws.write(new Map<string, string | null>([["src/a.ts", "new\n"], ["deep/new/file.txt", "hi\n"], ["latin1.txt", null]]));
    expect(await readFile(path.join(root, "src", "a.ts"), "utf8")).toBe("new\n");
    expect((await stat(path.join(root, "src", "a.ts"))).mode & 0o777).toBe(0o755);
    expect(await readFile(path.join(root, "deep/new/file.txt"), "utf8")).toBe("hi\n");
    await expect(stat(path.join(root, "latin1.txt"))).rejects.toThrow();
    expect((await readdir(path.join(root, "src"))).filter((f) => f.includes("aider-bot"))).toEqual([]);
  });
});
