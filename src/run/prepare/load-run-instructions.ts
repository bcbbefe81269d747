import type { InstructionSet } from "../../coder/repo-instructions.js";
import type { RepoGitHub } from "../../github/repo-github.js";
import type { RunRequest } from "../run-request.js";
import { defaultBranchInstructions } from "../../context/fetch/default-branch-instructions.js";
import { DEFAULT_INSTRUCTIONS_TOKENS } from "../../config/instructions-budget.js";
import { loadInstructions } from "../../context/load-instructions.js";

/**
 * The instruction files of one App or Action run, from the repository's default branch (never the PR's head, which
 * is what the checkout holds): undefined when they are off (`instructions: false` and no `read:`). A job queued
 * before these settings existed reads them with the defaults. Never throws.
 */
export async function loadRunInstructions(req: RunRequest, github: RepoGitHub): Promise<InstructionSet | undefined> {
  const s = req.settings.instructions ?? { auto: true, read: [], maxTokens: DEFAULT_INSTRUCTIONS_TOKENS };
  if (!s.auto && s.read.length === 0) return undefined;
  try {
    return await loadInstructions(defaultBranchInstructions(github, req.defaultBranch), {
      auto: s.auto,
      read: s.read,
      maxTokens: s.maxTokens,
      from: `the default branch (${req.defaultBranch})`,
    });
  } catch (error) {
    return {
      files: [],
      maxTokens: s.maxTokens,
      from: `the default branch (${req.defaultBranch})`,
      notes: [`The instruction files could not be read (${error instanceof Error ? error.message : String(error)}).`],
    };
  }
}
