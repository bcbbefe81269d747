import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { chooseDemoSandbox } from "../../src/cli/demo-sandbox.js";
import { createExec } from "../../src/exec/create-exec.js";

describe("chooseDemoSandbox", () => {
  let bin: string;
  beforeAll(async () => {
    bin = await mkdtemp(path.join(os.tmpdir(), "demo-sandbox-"));
  });
  afterAll(() => rm(bin, { recursive: true, force: true }));

  /** An exec whose PATH holds only a `bwrap` that exits with `code` (or none at all). */
  async function execWithBwrap(code: number | null) {
    const dir = await mkdtemp(path.join(bin, "path-"));
    if (code !== null) {
      await writeFile(
        path.join(dir, "bwrap"),
        `#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit ${code}\n`,
      );
      await chmod(path.join(dir, "bwrap"), 0o755);
    }
    return createExec({ sourceEnv: { PATH: dir } });
  }

  it("runs the trusted seed repository's commands unsandboxed where bubblewrap is missing, and says so and why", async () => {
    const s = await chooseDemoSandbox(await execWithBwrap(null), undefined);
    expect(s.setting).toBe("off");
    expect(s.note).toMatch(/^Sandbox: none: bubblewrap \(bwrap\) is not installed\./);
    expect(s.note).toContain("trusted");
    expect(s.note).toContain("WITHOUT a sandbox");
    expect(s.note).toContain("apt-get install bubblewrap");
  });

  it("does the same where bwrap is there but cannot run", async () => {
    const s = await chooseDemoSandbox(await execWithBwrap(1), undefined);
    expect(s.setting).toBe("off");
    expect(s.note).toMatch(
      /Sandbox: none: bwrap does not work on this host \(bwrap: No permissions to create new namespace\)/,
    );
  });

  it("uses bubblewrap where it works, as for any repository", async () => {
    const s = await chooseDemoSandbox(await execWithBwrap(0), undefined);
    expect(s).toEqual({ setting: "bubblewrap", note: expect.stringMatching(/^Sandbox: bubblewrap/) });
  });

  it.each(["off", "on", "auto"] as const)(
    "keeps the operator's AIDER_BOT_SANDBOX=%s without probing",
    async (requested) => {
      // A bwrap that works: the operator's choice still wins.
      const s = await chooseDemoSandbox(await execWithBwrap(0), requested);
      expect(s.setting).toBe(requested);
      expect(s.note).toContain(`AIDER_BOT_SANDBOX=${requested}`);
    },
  );
});
