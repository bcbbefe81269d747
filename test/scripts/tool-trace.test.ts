import { spawnSync } from "node:child_process";
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * scripts/tool-trace.mjs decides which test files CI's fresh-machine run needs: those that ran a tool the check
 * hides. Run as CI runs it: `shims DIR` writes the stand-ins, jest's setup notes each file's start, `files DIR` reads
 * the log.
 */
const SCRIPT = path.resolve("scripts/tool-trace.mjs");
const PYTHON = realpathSync(
  spawnSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).stdout.trim(),
);

function toolTrace(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: "utf8", env, cwd: process.cwd() });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe("scripts/tool-trace.mjs", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "tool-trace-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("hides the same tools as scripts/fresh-machine-check.sh", () => {
    const hide = /^HIDE=\(([^)]*)\)$/m.exec(readFileSync("scripts/fresh-machine-check.sh", "utf8"))?.[1];
    const listed = /HIDDEN_TOOLS = \[([^\]]*)\]/.exec(readFileSync(SCRIPT, "utf8"))?.[1];
    expect(listed?.replaceAll('"', "").split(", ")).toEqual(hide?.split(" "));
  });

  it("writes a stand-in that runs the real tool unchanged and notes its time and parent processes", () => {
    // A "real" bwrap on a PATH of its own: Python under that name, so it can say how it was started.
    const real = path.join(dir, "real");
    mkdirSync(real);
    symlinkSync(PYTHON, path.join(real, "bwrap"));
    const trace = path.join(dir, "trace");
    expect(toolTrace(["shims", trace], { ...process.env, PATH: real }).code).toBe(0);
    // Only the tools found on PATH get a stand-in.
    expect(readdirSync(path.join(trace, "bin"))).toEqual(["bwrap"]);

    const before = Date.now();
    const said =
      "import sys; a0 = open('/proc/self/cmdline').read().split(chr(0))[0]; print(a0, sys.argv[1:], sys.stdin.read()); sys.exit(3)";
    const r = spawnSync(path.join(trace, "bin", "bwrap"), ["-c", said, "/a b", "'q'"], {
      input: "from stdin",
      encoding: "utf8",
    });
    // The same process runs the real tool, under the name its callers use (a test may look for it by argv[0]).
    expect({ code: r.status, out: r.stdout.trim() }).toEqual({ code: 3, out: "bwrap ['/a b', \"'q'\"] from stdin" });
    const [kind, seconds, tool, ...chain] = readFileSync(path.join(trace, "log"), "utf8").trim().split(" ");
    expect({ kind, tool, parent: chain[0] }).toEqual({ kind: "tool", tool: "bwrap", parent: String(process.pid) });
    expect(Number(seconds) * 1000).toBeGreaterThanOrEqual(before - 1);
    // The chain goes up to init's child: this process's own parent is in it.
    expect(chain).toContain(String(process.ppid));
  });

  it("places each tool run in the file its jest worker was running then, and lists those files", () => {
    const trace = path.join(dir, "trace");
    mkdirSync(trace);
    const root = process.cwd();
    const log = [
      `start 1000 11 ${root}/test/a.test.ts`,
      `start 1000 22 ${root}/test/b.test.ts`,
      `start 5000 11 ${root}/test/c.test.ts`,
      `start 6000 22 ${root}/test/d.test.ts`,
      // Worker 11's descendant at 2 s: a.test.ts; worker 22's grandchild at 5.5 s: b.test.ts.
      "tool 2.000 bwrap 501 11 10 1",
      "tool 5.500 redis-server 502 503 22 10 1",
      // A daemon left behind (no worker among its ancestors): no file.
      "tool 7.000 podman 900 1",
      // Worker 11 again at 8 s: c.test.ts.
      "tool 8.000 bwrap 11 10 1",
      "",
    ].join("\n");
    writeFileSync(path.join(trace, "log"), log);
    const r = toolTrace(["files", trace]);
    expect(r.code).toBe(0);
    expect(r.out.trim().split("\n")).toEqual(["test/a.test.ts", "test/b.test.ts", "test/c.test.ts"]);
    expect(r.err).toContain("3 of 4 test files ran");
    expect(r.err).toContain("1 runs outside any test file's process tree");
  });

  it("fails, saying why, when the log noted no test file (CI then runs the whole suite)", () => {
    const trace = path.join(dir, "trace");
    mkdirSync(trace);
    expect(toolTrace(["files", trace])).toMatchObject({ code: 1, err: expect.stringContaining("no log at") });
    appendFileSync(path.join(trace, "log"), "tool 2.000 bwrap 501 11 10 1\n");
    expect(toolTrace(["files", trace])).toMatchObject({
      code: 1,
      err: expect.stringContaining("no test file noted its start"),
    });
    expect(toolTrace(["nonsense", trace]).code).toBe(2);
  });
});
