import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { DEMO_TEST_COMMAND } from "../../testkit/demo-script.js";
import { has } from "../helpers/needs.js";
import { runCli } from "../helpers/run-cli.js";
import { WAIT_MS } from "../helpers/timeouts.js";

describe("aider-bot demo (the README's first command)", () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(path.join(os.tmpdir(), "demo-cli-"));
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  test("runs both flows offline: the new test fails, the failure goes back to the model, the fix turns it green, then the push and the PR; exits 0 on its own", async () => {
    // runCli kills the process and fails with its output if it has not exited in time: a demo that hangs after
    // printing (engines, timers or the spare job process left running) fails here.
    // Two whole runs (the pull request's, with a failing round, and the issue's), each of which may take a harness wait.
    const { code, stdout, stderr } = await runCli(["demo"], {
      timeoutMs: WAIT_MS * 2,
      // Started from a folder of its own, to see it leaves no queue there (./.aider-bot is the app's default).
      cwd: home,
      env: {
        HOME: home,
        AIDER_BOT_CACHE_DIR: path.join(home, "cache"),
        AIDER_BOT_WORK_DIR: path.join(home, "jobs"),
        AIDER_BOT_DATA_DIR: path.join(home, "queue"),
        OPENAI_API_KEY: undefined,
        WEBHOOK_SECRET: undefined,
        REDIS_URL: undefined,
      },
    });
    // A demo that did not show the whole loop says which part is missing on its stdout's last lines.
    const failed = code === 0 ? {} : { stderr: stderr.slice(-2000), stdout: stdout.slice(-3000) };
    expect({ code, ...failed }).toEqual({ code: 0 });
    expect(stdout).toMatch(/^commit [0-9a-f]{40}$/m);
    expect(stdout).toMatch(/feat: /);
    expect(stdout).toMatch(/Opened #\d+ from `aider\/issue-/);
    // Where its commands run, said before anything runs: bubblewrap where it works, else unsandboxed and why.
    expect(stdout).toMatch(
      has("bubblewrap")
        ? /^Sandbox: bubblewrap/m
        : /^Sandbox: none: [^\n]+\.\nThe demo's seed repository is its own and trusted/m,
    );
    // The loop, in order: the edit, the failing test fed back (its real output), the fix, green, then the commit.
    const loop = stdout.indexOf("── The edit loop");
    const found = [
      "model   adds a retry loop to getText",
      `checks  The test command \`${DEMO_TEST_COMMAND}\` failed (exit code 1). The bot sends the failure back to the model:`,
      "│ error: 'GET https://example.test/ failed: 503'",
      "model   fixes it: `retries` counts the attempts after the first one",
      `checks  \`${DEMO_TEST_COMMAND}\` passes: the checks are green, so the bot commits and pushes.`,
      "── Commit pushed to the pull request branch",
    ].map((line) => ({ line, at: stdout.indexOf(line, loop) }));
    const missing = found.filter((f) => f.at < 0).map((f) => f.line);
    // With what it printed, when a line is missing: what the model was shown is the evidence.
    expect({ loop: loop >= 0, missing, ...(missing.length ? { stdout } : {}) }).toEqual({ loop: true, missing: [] });
    expect(found.map((f) => f.at)).toEqual(found.map((f) => f.at).sort((a, b) => a - b));
    // The status comment shows the checks ran; nothing says they were skipped.
    expect(stdout).toMatch(/Repository commands ran (in a bubblewrap sandbox|without a sandbox)/);
    expect(stdout).not.toMatch(/were \*\*not run\*\*|ERROR/);
    // Its queue was its own and is gone: a demo stopped half-way leaves no job for the next one to run again.
    expect(existsSync(path.join(home, ".aider-bot"))).toBe(false);
  });
});
