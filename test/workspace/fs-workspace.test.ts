import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile, lstat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createFsWorkspace } from "../../src/workspace/create-fs-workspace.js";
import { UnsafePathError } from "../../src/workspace/unsafe-path-error.js";
import { exec, sh } from "./git-fixtures.js";

describe("fs workspace", () => {
  let root: string;
  let outside: string;

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
    await writeFile(path.join(root, "big.txt"), "x".repeat(200));
    await symlink(outside, path.join(root, "out-dir"));
    await symlink(path.join(outside, "secret.txt"), path.join(root, "out-file.txt"));
    await symlink(path.join(root, ".git"), path.join(root, "git-link"));
    await symlink("a.ts", path.join(root, "src", "inner-link.ts"));
    await symlink(path.join(outside, "not-yet"), path.join(root, "dangling-dir"));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it.each([
    ["/etc/passwd", "unsafe-path"],
    ["../x.txt", "unsafe-path"],
    ["src/../../x.txt", "unsafe-path"],
    [".git/config", "unsafe-path"],
    ["git-link/config", "unsafe-path"],
    ["out-dir/secret.txt", "unsafe-path"],
    ["out-dir/not-there/deeper.txt", "unsafe-path"],
    ["out-file.txt", "unsafe-path"],
    ["bin.dat", "unreadable"],
    ["latin1.txt", "unreadable"],
    ["big.txt", "unreadable"],
    ["src", "unreadable"],
  ])("read refuses %s as %s", async (p, reason) => {
    const ws = createFsWorkspace(root, exec, { maxFileBytes: 100 });
    const snap = await ws.read([p]);
    expect(snap.files.has(p)).toBe(false);
    expect(snap.problems?.get(p)?.reason).toBe(reason);
    expect(snap.problems?.get(p)?.message).toContain(p);
  });

  it("reads content raw (CRLF kept), follows symlinks that stay inside, treats missing files as absent", async () => {
    const snap = await createFsWorkspace(root, exec).read(["src/a.ts", "src/inner-link.ts", "missing.ts", "big.txt"]);
    expect(snap.files.get("src/a.ts")).toBe("a\r\nb\r\n");
    expect(snap.files.get("src/inner-link.ts")).toBe("a\r\nb\r\n");
    expect(snap.files.get("big.txt")).toHaveLength(200);
    expect(snap.files.has("missing.ts")).toBe(false);
    expect(snap.problems?.size).toBe(0);
  });

  it.each([
    ["/tmp/abs.txt", /absolute/],
    ["../escape.txt", /`\.\.`/],
    ["out-dir/new.txt", /symbolic link leads outside/],
    ["out-file.txt", /symbolic link leads outside/],
    ["git-link/hooks/pre-commit", /into `\.git\/`/],
    ["dangling-dir/new.txt", /leads nowhere/],
    [".git/hooks/pre-commit", /\.git/],
    [".github/workflows/ci.yml", /protected/],
  ])("write refuses %s with a clear message and writes nothing", async (p, why) => {
    const ws = createFsWorkspace(root, exec);
    const err = await ws
      .write(
        new Map([
          ["src/ok.txt", "fine"],
          [p, "x"],
        ]),
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsafePathError);
    expect((err as UnsafePathError).path).toBe(p);
    expect((err as Error).message).toMatch(/^Refused to edit/);
    expect((err as Error).message).toMatch(why);
    // Checked before anything is written: the safe change in the same batch did not land either.
    await expect(stat(path.join(root, "src", "ok.txt"))).rejects.toThrow();
    expect(await readdir(outside)).toEqual(["secret.txt"]);
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("secret\n");
  });

  describe("a link inside the checkout to a protected folder (`wf -> .github/workflows`)", () => {
    const ci = () => path.join(root, ".github", "workflows", "ci.yml");
    beforeEach(async () => {
      await mkdir(path.join(root, ".github", "workflows"), { recursive: true });
      await writeFile(ci(), "on: push\n");
      await symlink(".github/workflows", path.join(root, "wf"));
    });

    it.each([
      ["edit", "wf/ci.yml", "on: pull_request_target\n"],
      ["create", "wf/new.yml", "on: push\n"],
      ["delete", "wf/ci.yml", null],
    ])(
      "refuses to %s %s, naming the protected path it leads to, and changes nothing on disk",
      async (_, p, content) => {
        const ws = createFsWorkspace(root, exec);
        const err = await ws
          .write(
            new Map<string, string | null>([
              ["src/ok.txt", "fine"],
              [p, content],
            ]),
          )
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(UnsafePathError);
        expect((err as Error).message).toMatch(
          /^Refused to edit `wf\/[a-z]+\.yml`: through a symbolic link it is `\.github\/workflows\/[a-z]+\.yml`/,
        );
        expect((err as Error).message).toMatch(/protected path/);
        expect(await readdir(path.join(root, ".github", "workflows"))).toEqual(["ci.yml"]);
        expect(await readFile(ci(), "utf8")).toBe("on: push\n");
        await expect(stat(path.join(root, "src", "ok.txt"))).rejects.toThrow();
      },
    );

    it("refuses a link to a protected file as the last component too", async () => {
      await symlink(".github/workflows/ci.yml", path.join(root, "ci-link.yml"));
      const err = await createFsWorkspace(root, exec)
        .write(new Map([["ci-link.yml", "x"]]))
        .catch((e: unknown) => e);
      expect((err as Error).message).toMatch(/protected path/);
      expect(await readFile(ci(), "utf8")).toBe("on: push\n");
    });
  });

  it("honours custom protected paths", async () => {
    const ws = createFsWorkspace(root, exec, { protectedPaths: ["secrets/**"] });
    await expect(ws.write(new Map([["secrets/key.pem", "x"]]))).rejects.toBeInstanceOf(UnsafePathError);
    await ws.write(new Map([[".github/workflows/ci.yml", "on: push\n"]]));
    expect(await readFile(path.join(root, ".github/workflows/ci.yml"), "utf8")).toBe("on: push\n");
  });

  it("writes atomically into new folders, keeps modes, writes CRLF as given, deletes, leaves no temp files", async () => {
    await chmod(path.join(root, "src", "a.ts"), 0o755);
    const ws = createFsWorkspace(root, exec);
    await ws.write(
      new Map<string, string | null>([
        ["src/a.ts", "new\r\nline\r\n"],
        ["deep/new/file.txt", "hi\n"],
        ["latin1.txt", null],
        ["never-existed.txt", null],
      ]),
    );
    expect(await readFile(path.join(root, "src", "a.ts"), "utf8")).toBe("new\r\nline\r\n");
    expect((await stat(path.join(root, "src", "a.ts"))).mode & 0o777).toBe(0o755);
    expect(await readFile(path.join(root, "deep/new/file.txt"), "utf8")).toBe("hi\n");
    await expect(stat(path.join(root, "latin1.txt"))).rejects.toThrow();
    const leftovers = [
      ...(await readdir(root)),
      ...(await readdir(path.join(root, "src"))),
      ...(await readdir(path.join(root, "deep/new"))),
    ];
    expect(leftovers.filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("writes through a symlink that stays inside, keeping the link", async () => {
    await createFsWorkspace(root, exec).write(new Map([["src/inner-link.ts", "via link\n"]]));
    expect((await lstat(path.join(root, "src", "inner-link.ts"))).isSymbolicLink()).toBe(true);
    expect(await readFile(path.join(root, "src", "a.ts"), "utf8")).toBe("via link\n");
  });

  it("lists tracked and untracked-not-ignored files in a git checkout, and walks a plain folder", async () => {
    const repo = await mkdtemp(path.join(os.tmpdir(), "ws-list-"));
    try {
      await sh(repo, ["init", "-q", "-b", "main"]);
      await writeFile(path.join(repo, ".gitignore"), "dist/\n");
      await mkdir(path.join(repo, "dist"));
      await writeFile(path.join(repo, "dist", "out.js"), "x");
      await writeFile(path.join(repo, "tracked.ts"), "x");
      await sh(repo, ["add", "tracked.ts", ".gitignore"]);
      await writeFile(path.join(repo, "new file.ts"), "x");
      expect(await createFsWorkspace(repo, exec).listFiles()).toEqual([".gitignore", "new file.ts", "tracked.ts"]);
      await rm(path.join(repo, ".git"), { recursive: true });
      expect(await createFsWorkspace(repo, exec).listFiles()).toEqual([".gitignore", "new file.ts", "tracked.ts"]);
    } finally {
      await rm(repo, { recursive: true, force: true });
    }
  });
});
