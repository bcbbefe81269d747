import type { Exec, ExecRequest } from "../../src/exec/types.js";
import { testExec } from "../helpers/test-exec.js";
import { runAppOnPullRequest, useAppPrRig } from "../helpers/app-pr-run.js";

/** Waits (a bounded number of turns) until `seen()` holds; true if it did. */
async function eventually(seen: () => boolean, turns = 2_000): Promise<boolean> {
  for (let i = 0; i < turns && !seen(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  return seen();
}

describe("container mode's devcontainer", () => {
  const rig = useAppPrRig("devcontainer-while-cloning-");

  it("is read from the default branch while the branch is cloned, and names the image the commands use", async () => {
    const { fake, llm } = rig();
    llm.push("Nothing to change.", "Nothing to change.");
    const devcontainerRead = () => fake.state.calls.some((c) => c.path.includes("devcontainer"));
    // The git process that writes the work tree (the mirror's read-tree, or a plain clone) finishes only once the
    // devcontainer has been asked for, or after a bounded wait that the assertion below then reports.
    let readWhileCloning: boolean | null = null;
    const inner = testExec({ sourceEnv: process.env });
    const exec = {
      ...inner,
      run: async (req: ExecRequest) => {
        const out = await inner.run(req);
        if (
          req.command === "git" &&
          readWhileCloning === null &&
          (req.args ?? []).some((a) => a === "read-tree" || a === "clone")
        )
          readWhileCloning = await eventually(devcontainerRead);
        return out;
      },
    } as Exec;
    const targets: { image: string }[] = [];
    const checkExec = {
      ...testExec({ sourceEnv: process.env }),
      useContainer: (t: { image: string }) => void targets.push(t),
    } as Exec;
    await runAppOnPullRequest(rig(), {
      files: {
        "src/fetch-client.ts": "export interface FetchOptions {\n  timeoutMs?: number;\n}\n",
        ".devcontainer/devcontainer.json": '{ "image": "mcr.microsoft.com/devcontainers/typescript-node:20" }\n',
      },
      config: { max_reflections: 1, baseline: "off" },
      message: "tidy the fetch client",
      exec,
      checkExec,
      env: { AIDER_BOT_DEFAULT_IMAGE: "debian:12" },
    });
    expect(readWhileCloning).toBe(true);
    expect(targets.map((t) => t.image)).toEqual(["mcr.microsoft.com/devcontainers/typescript-node:20"]);
    expect(fake.state.calls.filter((c) => c.path.includes("devcontainer"))).toHaveLength(1);
  });
});
