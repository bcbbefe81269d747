import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import pino from "pino";
import { runCheckCommand } from "../../src/checks/run-check-command.js";
import { createCheckExec } from "../../src/app/create-check-exec.js";
import { readEnv } from "../../src/config/env.js";
import { createExec } from "../../src/exec/create-exec.js";
import { describeWith } from "../helpers/needs.js";

/**
 * A CI setup step that installs a tool globally (`npm install -g nyc`) and a test step that runs it: in the sandbox
 * the system's npm prefix is read-only, so the install goes to the job's home and the next command finds the tool.
 */
describeWith("bubblewrap", "a setup step's global npm tool in the sandbox (real npm, bubblewrap)", () => {
  let root: string;
  let checkout: string;
  let made: ReturnType<typeof createCheckExec> | undefined;
  beforeAll(async () => {
    // Under the project folder, not /tmp, which the sandbox replaces with a private one.
    root = await mkdtemp(path.join(process.cwd(), ".user-tools-"));
    checkout = path.join(root, "work", "job-1", "repo");
    const tool = path.join(checkout, "vendor", "hello-tool");
    await mkdir(tool, { recursive: true });
    await writeFile(
      path.join(tool, "package.json"),
      JSON.stringify({ name: "hello-tool", version: "1.0.0", bin: { "hello-tool": "cli.js" } }),
    );
    await writeFile(path.join(tool, "cli.js"), "#!/usr/bin/env node\nconsole.log('hello from the tool');\n", {
      mode: 0o755,
    });
  });
  afterAll(async () => {
    await made?.close?.();
    await rm(root, { recursive: true, force: true });
  });

  it("`npm install -g` lands in the job's home and the next check runs the tool", async () => {
    made = createCheckExec(
      readEnv({
        AIDER_BOT_SANDBOX: "bubblewrap",
        AIDER_BOT_WORK_DIR: path.join(root, "work"),
        AIDER_BOT_SANDBOX_NETWORK: "none",
      }),
      createExec({ sourceEnv: process.env }),
      pino({ level: "silent" }),
      { appDir: path.join(root, "app") },
    );
    const run = (kind: "setup" | "test", command: string) =>
      runCheckCommand(made!, { kind, command, cwd: checkout, timeoutMs: 120_000 });
    const setup = await run("setup", "npm install -g --offline --no-audit --no-fund ./vendor/hello-tool");
    expect(setup).toMatchObject({ ok: true });
    const test = await run("test", "hello-tool");
    expect(test).toMatchObject({ ok: true });
    expect(test.output).toContain("hello from the tool");
    // The host's global npm config (where a registry's `cafile` or mirror is set) is still the one npm reads.
    const host = await createExec({ sourceEnv: { PATH: process.env.PATH, HOME: process.env.HOME } }).run({
      command: "npm",
      args: ["config", "get", "globalconfig"],
      cwd: checkout,
    });
    const inside = await run("test", "npm config get globalconfig");
    expect(inside.output.trim()).toBe(host.stdout.trim());
  });
});
