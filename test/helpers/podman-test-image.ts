import { execFileSync, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  closeSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  unlinkSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * A container image built from this host's own files (no registry is reachable where the tests run): `/bin/sh`,
 * the few tools the tests' scripts use, git, Python 3.11 with its library, what `ldd` lists for each, and two
 * things the host does not have: a marker file and a `python` command. Built once per machine (`podman image
 * exists` first; a lock file keeps two test files from building it together).
 */
export const TEST_IMAGE = "localhost/aider-bot-test-python:3";
/** The marker only the image has, and its content. */
export const IMAGE_MARKER = { path: "/etc/aider-bot-test-marker", content: "image-marker-31" };

const PROGRAMS = [
  "sh",
  "dash",
  "bash",
  "sleep",
  "cat",
  "env",
  "ls",
  "tr",
  "grep",
  "ln",
  "mkdir",
  "chmod",
  "cp",
  "touch",
  "rm",
  "id",
  "head",
  "echo",
  "true",
  "python3.11",
  "git",
];

const podman = (...args: string[]) =>
  spawnSync("podman", ["--runtime", "runc", "--cgroup-manager", "cgroupfs", ...args], { encoding: "utf8" });

/** Build {@link TEST_IMAGE} unless it exists. Synchronous: called from a describe body or beforeAll. */
export function ensureTestImage(): string {
  if (podman("image", "exists", TEST_IMAGE).status === 0) return TEST_IMAGE;
  const lock = path.join(os.tmpdir(), "aider-bot-test-image.lock");
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      closeSync(openSync(lock, "wx"));
      break;
    } catch {
      if (podman("image", "exists", TEST_IMAGE).status === 0) return TEST_IMAGE;
      if (Date.now() > deadline) rmSync(lock, { force: true });
      // Another test file is building it: wait on the lock (a synchronous pause; a build takes a few seconds).
      spawnSync("sleep", ["0.2"]);
    }
  }
  try {
    if (podman("image", "exists", TEST_IMAGE).status === 0) return TEST_IMAGE;
    build();
    return TEST_IMAGE;
  } finally {
    unlinkSync(lock);
  }
}

function build(): void {
  const dir = mkdtempSync(path.join(os.tmpdir(), "aider-bot-rootfs-"));
  const root = path.join(dir, "root");
  try {
    for (const d of ["bin", "lib", "lib64"]) {
      mkdirSync(path.join(root, "usr", d), { recursive: true });
      symlinkSync(`usr/${d}`, path.join(root, d));
    }
    const files = new Set<string>(["/lib64/ld-linux-x86-64.so.2"]);
    const binaries = PROGRAMS.map((p) => which(p)).filter((p): p is string => p !== null);
    for (const bin of binaries) {
      files.add(bin);
      for (const lib of ldd(bin)) files.add(lib);
    }
    for (const lib of ldd("/usr/lib/python3.11/lib-dynload/_ssl.cpython-311-x86_64-linux-gnu.so")) files.add(lib);
    for (const file of files) copy(file, root);
    cpSync("/usr/lib/python3.11", path.join(root, "usr/lib/python3.11"), {
      recursive: true,
      dereference: false,
      preserveTimestamps: true,
      filter: (src) => !src.includes("/test/"),
    });
    for (const d of ["tmp", "proc", "dev", "sys", "root", "etc", "usr/local/bin", "work"])
      mkdirSync(path.join(root, d), { recursive: true });
    symlinkSync("python3.11", path.join(root, "usr/bin/python3"));
    symlinkSync("python3.11", path.join(root, "usr/bin/python"));
    writeFileSync(path.join(root, IMAGE_MARKER.path), `${IMAGE_MARKER.content}\n`);
    writeFileSync(path.join(root, "etc/passwd"), "root:x:0:0:root:/root:/bin/sh\n");
    writeFileSync(path.join(root, "etc/group"), "root:x:0:\n");
    execFileSync("tar", ["-C", root, "-cf", path.join(dir, "rootfs.tar"), "."]);
    const r = podman(
      "import",
      "--change",
      "ENV PATH=/usr/local/bin:/usr/bin:/bin",
      path.join(dir, "rootfs.tar"),
      TEST_IMAGE,
    );
    if (r.status !== 0) throw new Error(`podman import failed: ${r.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function which(program: string): string | null {
  for (const d of ["/usr/bin", "/bin"]) if (existsSync(path.join(d, program))) return path.join(d, program);
  return null;
}

function ldd(file: string): string[] {
  const r = spawnSync("ldd", [file], { encoding: "utf8" });
  return [...r.stdout.matchAll(/(\/[^\s]+\.so[^\s]*)/g)].map((m) => m[1] ?? "");
}

/** Copy one file under `root` at the same path (following links: the content the host sees). */
function copy(file: string, root: string): void {
  // /bin, /lib and /lib64 are links to /usr/… on Debian; the image has the same links.
  const target = path.join(root, file.replace(/^\/(bin|lib|lib64)\//, "/usr/$1/"));
  mkdirSync(path.dirname(target), { recursive: true });
  if (!existsSync(target)) cpSync(file, target, { dereference: true });
}
