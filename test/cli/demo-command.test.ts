import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { runCli } from "../helpers/run-cli.js";

describe("aider-bot demo (the README's first command)", () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(path.join(os.tmpdir(), "demo-cli-"));
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  test("runs both flows offline, prints the commit and the opened PR, and exits 0 on its own", async () => {
    // runCli kills the process and fails with its output if it has not exited in time: a demo that hangs after
    // printing (engines, timers or the spare job process left running) fails here.
    const { code, stdout, stderr } = await runCli(["demo"], {
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
    expect({ code, stderr: code === 0 ? "" : stderr.slice(-2000) }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toMatch(/^commit [0-9a-f]{40}$/m);
    expect(stdout).toMatch(/feat: /);
    expect(stdout).toMatch(/Opened #\d+ from `aider\/issue-/);
  });
});
