import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createConfinedReader } from "../../src/workspace/confined-reader.js";
import { exec } from "./git-fixtures.js";

describe("confined reader", () => {
  let root: string;
  let outside: string;

  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "reader-"));
    outside = await mkdtemp(path.join(os.tmpdir(), "reader-outside-"));
    await writeFile(path.join(outside, "secret.pem"), "-----BEGIN PRIVATE KEY-----\nTOPSECRET\n");
    await mkdir(path.join(outside, "deep"));
    await writeFile(path.join(outside, "deep", "key.txt"), "TOPSECRET\n");
    await mkdir(path.join(root, "src", "nested"), { recursive: true });
    await mkdir(path.join(root, ".git"));
    await writeFile(path.join(root, ".git", "config"), "[core]\n");
    await writeFile(path.join(root, "src", "a.py"), "print(1)\n");
    await writeFile(path.join(root, "big.txt"), "x".repeat(101));
    await symlink(path.join(outside, "secret.pem"), path.join(root, "k.py"));
    await symlink("/proc/self/environ", path.join(root, "env.py"));
    await symlink(path.join(root, ".git", "config"), path.join(root, "cfg.py"));
    await symlink("../.git", path.join(root, "src", "g"));
    await symlink(outside, path.join(root, "src", "nested", "out"));
    await symlink("a.py", path.join(root, "src", "inner.py"));
    await symlink("missing-target", path.join(root, "dangling.py"));
    const fifo = await exec.run({ command: "mkfifo", args: [path.join(root, "pipe.py")], cwd: root });
    expect(fifo.exitCode).toBe(0);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  const read = (rel: string) => createConfinedReader(root, { maxBytes: 100 }).read(rel);

  it("reads a regular file inside the checkout", () => {
    const r = read("src/a.py");
    expect(r).toEqual({ ok: true, content: Buffer.from("print(1)\n"), resolved: "src/a.py" });
  });

  it("follows a symlink that stays inside and says where it led", () => {
    const r = read("src/inner.py");
    expect(r.ok && r.content.toString()).toBe("print(1)\n");
    expect(r.ok && r.resolved).toBe("src/a.py");
  });

  it.each([
    ["k.py", "outside"],
    ["env.py", "outside"],
    ["src/nested/out/deep/key.txt", "outside"],
    ["src/nested/out/secret.pem", "outside"],
    ["src/nested/out/not-there.pem", "outside"],
    ["src/g/not-there", "git-dir"],
    ["cfg.py", "git-dir"],
    ["src/g/config", "git-dir"],
    [".git/config", "unsafe-path"],
    [".GIT/config", "unsafe-path"],
    ["../x", "unsafe-path"],
    ["/etc/passwd", "unsafe-path"],
    ["pipe.py", "not-file"],
    ["src", "not-file"],
    ["big.txt", "too-large"],
    ["nope.py", "missing"],
    ["dangling.py", "missing"],
  ])("refuses %s (%s) with a message naming only the requested path", (rel, reason) => {
    const r = read(rel);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toBe(reason);
    expect(r.message).toContain(`\`${rel}\``);
    expect(r.message).not.toContain(outside);
    expect(JSON.stringify(r)).not.toContain("TOPSECRET");
  });

  it("refuses a symlink to a device (/dev/null) without opening it: it lands outside", async () => {
    await symlink("/dev/null", path.join(root, "null.py"));
    const r = read("null.py");
    expect(!r.ok && r.reason).toBe("outside");
  });

  it("the cap is configurable: the default reads the 101-byte file", () => {
    const r = createConfinedReader(root).read("big.txt");
    expect(r.ok && r.content.length).toBe(101);
  });
});
