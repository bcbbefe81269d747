import { sandboxProblem } from "../exec/sandbox.js";
import type { Exec } from "../exec/types.js";

export interface DemoSandbox {
  /** The demo app's AIDER_BOT_SANDBOX. */
  setting: "auto" | "on" | "bubblewrap" | "container" | "off";
  /** What the demo prints about where the repository's commands run. */
  note: string;
}

/**
 * Where the demo's repository commands run. The operator's AIDER_BOT_SANDBOX wins; otherwise bubblewrap where it
 * works, as for any repository. Where it does not (a fresh machine), the demo still shows the loop: its seed
 * repository is its own and trusted, so its test command runs unsandboxed, and the demo says so. A deployment never
 * does this by itself: without bubblewrap the app runs no repository command unless AIDER_BOT_SANDBOX=off.
 */
export async function chooseDemoSandbox(exec: Exec, requested: string | undefined): Promise<DemoSandbox> {
  if (requested === "off")
    return {
      setting: "off",
      note: "Sandbox: off (AIDER_BOT_SANDBOX=off): the repository's test command runs without a sandbox.",
    };
  if (requested === "on" || requested === "auto" || requested === "bubblewrap" || requested === "container") {
    return {
      setting: requested,
      note: `Sandbox: ${requested} (AIDER_BOT_SANDBOX=${requested}): the repository's test command runs only in a sandbox.`,
    };
  }
  const problem = await sandboxProblem(exec);
  // bubblewrap, not auto: auto prefers a container engine, and the demo's offline machine can pull no image.
  if (problem === null)
    return {
      setting: "bubblewrap",
      note: "Sandbox: bubblewrap: the repository's test command runs in the sandbox, as for any repository.",
    };
  return {
    setting: "off",
    note: [
      `Sandbox: none: ${problem}.`,
      "The demo's seed repository is its own and trusted, so its test command runs WITHOUT a sandbox (AIDER_BOT_SANDBOX=off for",
      "this demo only). For real repositories install bubblewrap (apt-get install bubblewrap): without it the app runs no",
      "repository command unless you set AIDER_BOT_SANDBOX=off yourself.",
    ].join("\n"),
  };
}
