import { exampleInstallation, examplePayload } from "../../testkit/builders/webhook-payloads.js";
import { decideAutofix } from "../../src/triage/decide-autofix.js";
import type { PriorRun } from "../../src/context/pr-data.js";
import { parseWebhook } from "../../src/edge/parse-webhook.js";
import { pushedByBot } from "../../src/triage/pushed-by-bot.js";

const completed = () => {
  const payload = examplePayload("check_suite", "completed");
  payload.installation = exampleInstallation(1);
  return payload;
};
/** The suite as the edge reads it. */
function readCheckSuite(p: unknown) {
  const parsed = parseWebhook("check_suite", p, "d");
  if (!parsed.ok || parsed.event.kind !== "check-suite") throw new Error(JSON.stringify(parsed));
  const { suite } = parsed.event;
  return {
    conclusion: suite.conclusion,
    headSha: suite.headSha,
    suiteAppId: suite.appId,
    pullNumbers: suite.pullNumbers,
  };
}

describe("the edge's check suite + pushedByBot → decideAutofix", () => {
  it("reads GitHub's example check_suite.completed payload", () => {
    const p = completed();
    expect(readCheckSuite(p)).toEqual({
      conclusion: "success",
      headSha: "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
      suiteAppId: 29310,
      pullNumbers: [2],
    });
  });

  it("a failed suite on the bot's commit starts round 1; a PR from another repository is left out", () => {
    const p = completed();
    p.check_suite.conclusion = "failure";
    const facts = readCheckSuite(p)!;
    const runs: PriorRun[] = [
      {
        jobId: "j",
        verb: "run",
        request: "x",
        outcome: "pushed",
        commit: "ec26c3e",
        files: [],
        answer: "",
        createdAt: "",
      },
    ];
    expect(pushedByBot(runs, facts.headSha)).toBe(true);
    expect(pushedByBot([{ ...runs[0]!, outcome: "reverted" }], facts.headSha)).toBe(false);
    expect(
      decideAutofix({
        ...facts,
        autofix: true,
        maxRounds: 2,
        botAppId: 1,
        headPushedByBot: pushedByBot(runs, facts.headSha),
        roundsDone: 0,
      }),
    ).toEqual({ kind: "fix", pull: 2, round: 1 });
    p.check_suite.pull_requests[0]!.base.repo.id = 42;
    expect(readCheckSuite(p)!.pullNumbers).toEqual([]);
  });
});
