import nock from "nock";
import { fireScheduleDetailed } from "../../src/triage/fire-schedule.js";
import type { ScheduleTarget } from "../../src/triage/schedule-key.js";
import { parseRepoConfig } from "../../src/config/repo-config.js";
import type { RunQueue } from "../../src/run/run-job-data.js";
import { GITHUB_API, testOctokit, useStrictNock } from "../helpers/test-octokit.js";

const marker = "<!-- aider-bot:schedule:k -->";
const target = (stack: boolean): ScheduleTarget => {
  const parsed = parseRepoConfig({ schedules: [{ cron: "0 6 * * 1", message: "add a changelog entry", stack }] });
  if (!parsed.ok) throw new Error("bad config");
  return {
    installationId: 7,
    owner: "acme",
    repo: "widgets",
    defaultBranch: "main",
    cloneUrl: "https://github.com/acme/widgets.git",
    config: parsed.config,
  };
};

describe("a schedule's tick while its last pull request is open", () => {
  useStrictNock(nock);
  const queued: string[] = [];
  const runs: RunQueue = {
    enqueue: async (job) => (queued.push(job.id), true),
    cancel: async () => ({ dropped: 0, aborted: 0 }),
  };
  beforeEach(() => (queued.length = 0));
  const tracking = () =>
    nock(GITHUB_API)
      .get("/repos/acme/widgets/issues")
      .query(true)
      .reply(200, [{ number: 3, title: "aider-bot schedule: add a changelog entry", body: marker }]);

  it("is skipped (stack: false), naming the open PR, and queues nothing", async () => {
    tracking()
      .get("/repos/acme/widgets/pulls")
      .query({ state: "open", head: "acme:aider/issue-3-aider-bot-schedule-add-a-changelog-entry", per_page: "1" })
      .reply(200, [{ number: 9 }]);
    const t = target(false);
    const result = await fireScheduleDetailed({
      api: testOctokit(),
      target: t,
      schedule: t.config.schedules[0]!,
      key: "k",
      botLogin: "aider-bot[bot]",
      runs,
      defaults: { model: "gpt-4o" },
      now: new Date(0),
    });
    expect(result).toEqual({ kind: "skipped", issue: 3, pr: 9 });
    expect(queued).toEqual([]);
  });

  it("runs when no PR is open, when the entry stacks, and for Run now", async () => {
    const start = () =>
      nock(GITHUB_API)
        .get("/repos/acme/widgets/issues/3/comments")
        .query(true)
        .times(2)
        .reply(200, [])
        .post("/repos/acme/widgets/issues/3/comments")
        .reply(201, { id: 99 });
    tracking().get("/repos/acme/widgets/pulls").query(true).reply(200, []);
    start();
    const free = target(false);
    expect(
      (
        await fireScheduleDetailed({
          api: testOctokit(),
          target: free,
          schedule: free.config.schedules[0]!,
          key: "k",
          botLogin: "aider-bot[bot]",
          runs,
          defaults: { model: "gpt-4o" },
          now: new Date(0),
        })
      ).kind,
    ).toBe("started");
    // stack: true never asks for the PR; nor does Run now, which takes its own job id.
    tracking();
    start();
    const stacked = target(true);
    expect(
      (
        await fireScheduleDetailed({
          api: testOctokit(),
          target: stacked,
          schedule: stacked.config.schedules[0]!,
          key: "k",
          botLogin: "aider-bot[bot]",
          runs,
          defaults: { model: "gpt-4o" },
          now: new Date(1000),
        })
      ).kind,
    ).toBe("started");
    tracking();
    start();
    expect(
      await fireScheduleDetailed({
        api: testOctokit(),
        target: free,
        schedule: free.config.schedules[0]!,
        key: "k",
        botLogin: "aider-bot[bot]",
        runs,
        defaults: { model: "gpt-4o" },
        now: new Date(2000),
        manual: { jobId: "k@run-now:d1" },
      }),
    ).toEqual({ kind: "started", issue: 3, jobId: "k@run-now:d1" });
    expect(queued).toEqual(["k@1970-01-01T00:00:00.000Z", "k@1970-01-01T00:00:01.000Z", "k@run-now:d1"]);
  });
});
