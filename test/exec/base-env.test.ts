import os from "node:os";
import { createExec } from "../../src/exec/create-exec.js";

describe("the environment repository commands start from", () => {
  it("keeps where rustup's toolchains live, so `cargo` (a rustup proxy) finds one with the job's own HOME", async () => {
    // The official Rust images set RUSTUP_HOME=/usr/local/rustup; without it the proxy looks in $HOME/.rustup.
    const exec = createExec({
      sourceEnv: {
        PATH: process.env.PATH,
        HOME: os.tmpdir(),
        RUSTUP_HOME: "/usr/local/rustup",
        OPENAI_API_KEY: "sk-x",
      },
    });
    const r = await exec.run({
      command: "sh",
      args: ["-c", 'printf "%s|%s" "$RUSTUP_HOME" "$OPENAI_API_KEY"'],
      cwd: os.tmpdir(),
    });
    expect(r.stdout).toBe("/usr/local/rustup|");
  });
});
