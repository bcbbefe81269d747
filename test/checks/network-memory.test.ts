import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { baselineOf, compareWithBaseline } from "../../src/checks/compare-baseline.js";
import {
  setupFailureFile,
  setupThroughMemory,
  unreachableHost,
  writeFailure,
} from "../../src/checks/network-memory.js";
import { runCheckCommand } from "../../src/checks/run-check-command.js";
import type { CheckReport } from "../../src/checks/types.js";
import { installError } from "../../src/coder/check-commands.js";
import { createExec } from "../../src/exec/create-exec.js";
import type { Exec, NetworkMemoryPlace } from "../../src/exec/types.js";

/** pip as it fails where the index's name does not resolve (its last lines, after five retries). */
const PIP_OFFLINE = [
  "WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPSConnection object at 0x7f>: Failed to establish a new connection: [Errno -2] Name or service not known')': /simple/hatch/",
  "ERROR: Could not find a version that satisfies the requirement hatch (from versions: none)",
  "ERROR: No matching distribution found for hatch",
].join("\n");

describe("unreachableHost", () => {
  it.each([
    ["pip, a name that does not resolve", PIP_OFFLINE],
    [
      "pip through a proxy that refuses",
      "ProxyError('Cannot connect to proxy.', OSError('Tunnel connection failed: 403 Forbidden'))",
    ],
    [
      "npm",
      "npm error code ENOTFOUND\nnpm error request to https://registry.npmjs.org/left-pad failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org",
    ],
    [
      "npm, no resolver",
      "npm error errno EAI_AGAIN\nnpm error request to https://registry.npmjs.org/x failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org",
    ],
    [
      "yarn, refused",
      'error An unexpected error occurred: "https://registry.yarnpkg.com/x: connect ECONNREFUSED 127.0.0.1:443".',
    ],
    [
      "cargo",
      "warning: spurious network error (3 tries remaining): [6] Couldn't resolve host name (Could not resolve host: index.crates.io)",
    ],
    [
      "go",
      'go: github.com/pkg/errors@v0.9.1: Get "https://proxy.golang.org/github.com/pkg/errors/@v/v0.9.1.mod": dial tcp: lookup proxy.golang.org on 127.0.0.53:53: no such host',
    ],
    [
      "bundler",
      'Could not fetch specs from https://rubygems.org/ due to underlying error <Errno::ECONNREFUSED: Failed to open TCP connection to rubygems.org:443 (Connection refused - connect(2) for "rubygems.org" port 443)>',
    ],
  ])("is a host that could not be reached: %s", (_, output) => {
    expect(unreachableHost(output)).toBe(true);
  });

  it.each([
    [
      "a version that does not exist",
      "ERROR: Could not find a version that satisfies the requirement uv==99 (from versions: 0.4, 0.5)\nERROR: No matching distribution found for uv==99",
    ],
    [
      "a read timeout (may pass on a retry)",
      "ReadTimeoutError(\"HTTPSConnectionPool(host='pypi.org', port=443): Read timed out. (read timeout=15)\")",
    ],
    ["a reset", "npm error code ECONNRESET\nnpm error network aborted"],
    ["a registry's 503", "npm error code E503\nnpm error 503 Service Unavailable - GET https://registry.npmjs.org/x"],
    [
      "a connect timeout",
      "npm error code ETIMEDOUT\nnpm error network request to https://registry.npmjs.org/x failed, reason: connect ETIMEDOUT 104.16.0.35:443",
    ],
    ["a test that failed", "FAIL test/a.test.js\n  ● adds\n    expect(received).toBe(expected)"],
  ])("is not: %s", (_, output) => {
    expect(unreachableHost(output)).toBe(false);
  });
});

/**
 * A setup command run through the shelf's memory with real processes: `fake-pip` prints what the `mode` file beside it
 * says and a run id (so a report shows which run it came from), and appends to `calls`.
 */
describe("a setup command's failure for want of the network, remembered (real processes)", () => {
  let root: string;
  let exec: Exec;
  const FAKE_PIP = `#!/bin/sh
here=$(dirname "$0")
echo run >> "$here/calls"
echo "run $(date +%s%N)"
case "$(cat "$here/mode")" in
  ok) echo "Successfully installed hatch-1.9" ;;
  offline) printf '%s\\n' "${PIP_OFFLINE.replace(/'/g, "")}"; exit 1 ;;
  broken) echo "ERROR: No matching distribution found for hatch==99"; exit 1 ;;
  slow) sleep 5 ;;
esac
`;
  beforeEach(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "network-memory-"));
    await mkdir(path.join(root, "bin"));
    await writeFile(path.join(root, "bin", "fake-pip"), FAKE_PIP, { mode: 0o755 });
    await mode("offline");
    exec = createExec({ sourceEnv: { PATH: `${path.join(root, "bin")}:/usr/bin:/bin` } });
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  const mode = (m: string) => writeFile(path.join(root, "bin", "mode"), m);
  const calls = async () =>
    (await readFile(path.join(root, "bin", "calls"), "utf8").catch(() => "")).split("\n").filter(Boolean).length;
  const place = (extra: Partial<NetworkMemoryPlace> = {}): NetworkMemoryPlace => ({
    dir: path.join(root, "shelf"),
    retryAfterMs: 30 * 60_000,
    network: '["registries",[],"",[],[],""]',
    ...extra,
  });
  /** One job's setup step: an exec whose `setupMemory` is `where` (null: none, as with no sandbox). */
  const setup = (
    where: NetworkMemoryPlace | null = place(),
    command = "fake-pip install --upgrade pip hatch",
    timeoutMs = 30_000,
  ) => runCheckCommand({ ...exec, setupMemory: async () => where }, { kind: "setup", command, cwd: root, timeoutMs });

  it("does not run it again in a later job until the retry time, and the report is the failure's, saying so", async () => {
    const first = await setup();
    expect(first).toMatchObject({ kind: "setup", ok: false, exitCode: 1 });
    const ran = /run \d+/.exec(first.output)![0];
    const second = await setup();
    expect(await calls()).toBe(1);
    expect(second).toMatchObject({
      kind: "setup",
      ok: false,
      exitCode: 1,
      command: "fake-pip install --upgrade pip hatch",
    });
    // The first run's own output, then the bot's line: not run, when it failed, when it is tried again.
    expect(second.output).toContain(ran);
    expect(second.output).toContain("No matching distribution found for hatch");
    expect(second.output.split("\n").at(-1)).toMatch(
      /^\[aider-bot\] not run: it failed at \d\d:\d\d UTC for want of the network, tried again after \d\d:\d\d UTC; its error: No matching distribution found for hatch$/,
    );
    // The status's line for a runner's install that failed says it too (the last error line is the bot's).
    expect(installError(second.output)).toMatch(/^\[aider-bot\] not run: it failed at/);
  });

  it("runs it again under another network setting, another command line, with no shelf, or a retry time of 0", async () => {
    await setup();
    await setup(place({ network: '["registries",["pypi.org"],"",[],[],""]' }));
    await setup(place(), "fake-pip install hatch");
    await setup(null);
    expect(await calls()).toBe(4);
    const dir = path.join(root, "shelf0");
    await setup(place({ dir, retryAfterMs: 0 }));
    await setup(place({ dir, retryAfterMs: 0 }));
    expect(await calls()).toBe(6);
    await expect(readdir(dir)).rejects.toThrow();
  });

  it("remembers only a host that could not be reached: not another failure, a timeout, or a command that passed", async () => {
    await mode("broken");
    await setup();
    await setup();
    await mode("slow");
    expect(await setup(place(), undefined, 300)).toMatchObject({ ok: false, timedOut: true });
    await mode("ok");
    expect(await setup()).toMatchObject({ ok: true });
    expect(await calls()).toBe(4);
    expect(await readdir(path.join(root, "shelf")).catch(() => [])).toEqual([]);
  });

  it("tries again after the retry time, and forgets the failure once the command passes", async () => {
    const at = new Date("2026-11-30T06:00:00Z");
    const file = setupFailureFile(path.join(root, "shelf"), "net", "fake-pip install hatch");
    const where = { dir: path.join(root, "shelf"), network: "net", retryAfterMs: 30 * 60_000 };
    const run = () =>
      runCheckCommand(exec, { kind: "setup", command: "fake-pip install hatch", cwd: root, timeoutMs: 30_000 });
    expect(await setupThroughMemory(where, "fake-pip install hatch", run, () => at)).toMatchObject({ ok: false });
    const later = (minutes: number) => () => new Date(at.getTime() + minutes * 60_000);
    const recalled = await setupThroughMemory(where, "fake-pip install hatch", run, later(29));
    expect(recalled.output).toMatch(
      /not run: it failed at 06:00 UTC for want of the network, tried again after 06:30 UTC/,
    );
    expect(await calls()).toBe(1);
    // A clock set back before the failure does not make it last longer.
    await setupThroughMemory(where, "fake-pip install hatch", run, later(-5));
    expect(await calls()).toBe(2);
    await mode("ok");
    expect(await setupThroughMemory(where, "fake-pip install hatch", run, later(31))).toMatchObject({ ok: true });
    await expect(readdir(path.dirname(file))).resolves.toEqual([]);
  });

  it("reads a remembered failure only from a regular file of its own: a link planted in its place is run past", async () => {
    const file = setupFailureFile(path.join(root, "shelf"), place().network!, "fake-pip install --upgrade pip hatch");
    const elsewhere = path.join(root, "planted.json");
    await writeFailure(elsewhere, { at: new Date(), error: "planted", exitCode: 3, output: "planted" });
    await mkdir(path.dirname(file), { recursive: true });
    await symlink(elsewhere, file);
    const r = await setup();
    expect(r.output).not.toContain("planted");
    expect(await calls()).toBe(1);
  });

  it("compares a failure not run again with the same failure run: equal (the bot's line is not the command's output)", async () => {
    const ran = await setup();
    const recalled: CheckReport = await setup();
    expect(compareWithBaseline(ran, baselineOf(recalled, [root]), [root]).kind).toBe("pre-existing");
    expect(compareWithBaseline(recalled, baselineOf(ran, [root]), [root]).kind).toBe("pre-existing");
  });
});
