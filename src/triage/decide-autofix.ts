/** What the app knows when a check suite completes (from the `check_suite.completed` payload and the PR). */
export interface AutofixState {
  autofix: boolean;
  maxRounds: number;
  /** check_suite.conclusion */
  conclusion: string | null;
  /** The app that ran the suite: our own check run's suite must not trigger a fix of itself. */
  suiteAppId: number;
  botAppId: number;
  /** The suite's head commit was pushed by the bot (its last commit on the PR). */
  headPushedByBot: boolean;
  /** Open pull requests of the suite's head commit (check_suite.pull_requests). */
  pullNumbers: number[];
  /** Automatic CI fixes already run on this PR (counted from the bot's status comments). */
  roundsDone: number;
}

export type AutofixDecision =
  | { kind: "fix"; pull: number; round: number }
  | { kind: "skip"; reason: string }
  /** Limit reached: say so once in the status comment instead of running again. */
  | { kind: "stop"; pull: number; message: string };

const FAILED = new Set(["failure", "timed_out"]);

/**
 * Should a completed check suite start an automatic `fix-ci` run (pure)? Only when the repository opted in
 * (`ci.autofix`), the suite failed on a commit the bot pushed (never on a person's commit: they did not ask), it is
 * not the bot's own suite, and fewer than `ci.max_rounds` rounds ran on the pull request, so two bad fixes cannot
 * loop forever.
 */
export function decideAutofix(s: AutofixState): AutofixDecision {
  if (!s.autofix) return { kind: "skip", reason: "ci.autofix is off" };
  if (!s.conclusion || !FAILED.has(s.conclusion))
    return { kind: "skip", reason: `check suite concluded ${s.conclusion ?? "without a conclusion"}` };
  if (s.suiteAppId === s.botAppId) return { kind: "skip", reason: "the bot's own check suite" };
  if (!s.headPushedByBot) return { kind: "skip", reason: "the failing commit is not the bot's" };
  const pull = s.pullNumbers[0];
  if (pull === undefined)
    return { kind: "skip", reason: "the commit belongs to no open pull request of this repository" };
  if (s.roundsDone >= s.maxRounds) {
    return {
      kind: "stop",
      pull,
      message: `Checks still fail after ${s.roundsDone} automatic fix${s.roundsDone === 1 ? "" : "es"} (\`ci.max_rounds: ${s.maxRounds}\`); I stop here. Run \`/aider fix-ci\` to try again.`,
    };
  }
  return { kind: "fix", pull, round: s.roundsDone + 1 };
}
