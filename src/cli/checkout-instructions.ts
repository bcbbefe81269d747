import { DEFAULT_INSTRUCTIONS_TOKENS } from "../config/instructions-budget.js";
import type { InstructionSource } from "../context/load-instructions.js";
import { createConfinedReader } from "../workspace/confined-reader.js";

/**
 * Instruction files from a local checkout, for `aider-bot run`: the user runs it on their own working tree, which is
 * the code they ask about (there is no pull request head to distrust). Listed as git lists them, read through the
 * confined reader (no link out of the checkout, no `.git`).
 */
export function checkoutInstructions(root: string, listFiles: () => Promise<string[]>): InstructionSource {
  const reader = createConfinedReader(root, { maxBytes: 1_000_000 });
  return {
    list: async () => ({ paths: (await listFiles()).map((path) => ({ path })) }),
    read: async (path) => {
      const got = reader.read(path);
      if (got.ok) return got.content.toString("utf8");
      if (got.reason === "missing") return null;
      throw new Error(got.message);
    },
  };
}

export const CLI_INSTRUCTIONS_TOKENS = DEFAULT_INSTRUCTIONS_TOKENS;
