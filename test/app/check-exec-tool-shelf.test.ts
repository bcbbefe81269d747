import { bubblewrapJobExec } from "../helpers/bubblewrap-job-exec.js";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { runCheckCommand } from "../../src/checks/run-check-command.js";
import type { Exec } from "../../src/exec/types.js";
import { dirOutsideTmp } from "../helpers/dir-outside-tmp.js";
import { describeWith } from "../helpers/needs.js";

/**
 * pip's stand-in: installs a `uv` into the user base it is given, which says which install made it; fails as pip does
 * where no index resolves while an `offline` file is beside it.
 */
const FAKE_PYTHON = `#!/bin/sh
if [ -e "$(dirname "$0")/offline" ]; then
  echo "WARNING: Retrying after connection broken by 'NewConnectionError(Failed to establish a new connection: [Errno -2] Name or service not known)': /simple/uv/"
  echo "ERROR: No matching distribution found for uv"
  exit 1
fi
id=$(date +%s%N)
mkdir -p "$PYTHONUSERBASE/bin"
printf '#!/bin/sh\\necho real uv %s\\n' "$id" > "$PYTHONUSERBASE/bin/uv"; chmod +x "$PYTHONUSERBASE/bin/uv"
`;
const IMPLIED = `PATH="$HOME/.local/bin:$PATH"; command -v uv >/dev/null 2>&1 || PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --user --retries 1 uv`;

/**
 * A tool an implied setup step installs lasts across a repository's jobs in bubblewrap: installed once onto the
 * repository's shelf (under the cache dir), copied into each job's home, and the shelf itself out of every sandbox's
 * reach, so one job's commands cannot change what the next runs.
 */
describeWith("bubblewrap", "the tools shelf of a repository's jobs in bubblewrap (real bubblewrap)", () => {
  let root: string;
  const made: Exec[] = [];
  beforeAll(async () => {
    // Not under /tmp, which the sandbox replaces with a private one.
    root = await dirOutsideTmp(".tool-shelf-");
    await mkdir(path.join(root, "bin"), { recursive: true });
    await writeFile(path.join(root, "bin", "python3"), FAKE_PYTHON, { mode: 0o755 });
  });
  afterAll(async () => {
    for (const e of made) await e.close?.();
    await rm(root, { recursive: true, force: true });
  });

  async function job(name: string, cacheKey: string, env: Record<string, string> = {}) {
    const checkout = path.join(root, "work", name, "repo");
    await mkdir(checkout, { recursive: true });
    const exec = bubblewrapJobExec(
      root,
      { ...process.env, PATH: `${path.join(root, "bin")}:${process.env.PATH ?? ""}` },
      env,
    );
    made.push(exec);
    exec.useContainer?.({ image: "unused:1", imageSource: "test", checkout, cacheKey });
    const sh = async (command: string, on: Exec = exec) => {
      const r = await on.run({ command, shell: true, cwd: checkout, timeoutMs: 60_000 });
      return `${r.exitCode} ${r.output.trim()}`;
    };
    const setup = (on: Exec = exec) =>
      runCheckCommand(on, {
        kind: "setup",
        command: IMPLIED,
        cwd: checkout,
        timeoutMs: 60_000,
        tool: { name: "uv", requirement: "uv" },
      });
    return { exec, sh, setup, checkout };
  }

  it("installs once, copies into each job's home, and a job cannot reach or change the shelf", async () => {
    const a = await job("job-a", "octo/one");
    expect(await a.setup()).toMatchObject({
      ok: true,
      output: "`uv` installed, and kept for this repository's later jobs.",
    });
    const installed = await a.sh('PATH="$HOME/.local/bin:$PATH" uv');
    expect(installed).toMatch(/^0 real uv \d+$/);
    // The base's commands (another checkout of the job) find it too, with no second install.
    const base = a.exec.forCheckout!(path.join(root, "work", "job-a", "base"));
    await mkdir(path.join(root, "work", "job-a", "base"), { recursive: true });
    expect(await base.toolShelf!()).not.toBeNull();
    // A hostile job: it changes its own copy, and looks for the shelf.
    expect(await a.sh('printf "#!/bin/sh\\necho poisoned\\n" > "$HOME/.local/bin/uv"')).toBe("0 ");
    expect(await a.sh(`ls -A "${path.join(root, "cache")}"`)).toBe("0 packages");
    expect(await a.sh(`ls -A "${path.join(root, "cache", "tools")}" 2>&1 | wc -l`)).toBe("0 1");

    const b = await job("job-b", "octo/one");
    expect(await b.setup()).toMatchObject({ ok: true });
    // The same install's copy: nothing was installed again, and job A's change did not reach it.
    expect(await b.sh('PATH="$HOME/.local/bin:$PATH" uv')).toBe(installed);

    // Another repository (or a fork's pull request) has a shelf of its own.
    const other = await job("job-c", "octo/one#fork-pr-3");
    expect(await other.setup()).toMatchObject({ ok: true });
    expect(await other.sh('PATH="$HOME/.local/bin:$PATH" uv')).not.toBe(installed);
  });

  it("remembers an install that could not reach the index per network setting: a wider one tries again at once", async () => {
    await writeFile(path.join(root, "bin", "offline"), "");
    try {
      const a = await job("job-d", "octo/two");
      expect((await a.setup()).output).toMatch(/^ERROR: No matching distribution found for uv$/m);
      const b = await job("job-e", "octo/two");
      expect((await b.setup()).output).toMatch(
        /^not tried again: its install failed 1 min ago for want of the network/,
      );
      // The operator opens the network: the next job tries (and fails here, again, for want of an index).
      const c = await job("job-f", "octo/two", { AIDER_BOT_SANDBOX_NETWORK: "open" });
      const tried = (await c.setup()).output;
      expect(tried).not.toMatch(/not tried again/);
      expect(tried).toMatch(/^ERROR: No matching distribution found for uv$/m);
    } finally {
      await rm(path.join(root, "bin", "offline"));
    }
  });
});
