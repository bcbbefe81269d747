import nock from "nock";
import pino from "pino";
import { fireSchedule } from "../../src/triage/fire-schedule.js";
import { listScheduleTargets } from "../../src/app/list-schedule-targets.js";
import type { RunJobData, RunQueue } from "../../src/run/run-job-data.js";
import { GITHUB_API, testOctokit, useStrictNock } from "../helpers/test-octokit.js";

const config = "schedules:\n  - cron: '0 6 * * 1'\n    message: add a changelog entry\n";
const repo = {
  name: "widgets",
  owner: { login: "acme" },
  default_branch: "main",
  clone_url: "https://github.com/acme/widgets.git",
  html_url: "https://github.com/acme/widgets",
};

describe("a scheduled run knows its repository's main language (the grammar it loads while cloning)", () => {
  useStrictNock(nock);

  it("from the installation's repository listing to the queued run request; none when GitHub names none", async () => {
    nock(GITHUB_API)
      .get("/app/installations")
      .query(true)
      .reply(200, [{ id: 7 }])
      .get("/installation/repositories")
      .query(true)
      .reply(200, {
        total_count: 2,
        repositories: [
          { ...repo, language: "TypeScript" },
          { ...repo, name: "docs", language: null },
        ],
      })
      .get(/\/repos\/acme\/(widgets|docs)\/contents\/.github%2Faider.yml/)
      .times(2)
      .reply(200, config);
    const api = testOctokit();
    const targets = await listScheduleTargets({
      appApi: api,
      installationApi: async () => api,
      log: pino({ level: "silent" }),
    });
    expect(targets.map((t) => [t.repo, t.language])).toEqual([
      ["widgets", "TypeScript"],
      ["docs", undefined],
    ]);

    const queued: RunJobData[] = [];
    const runs: RunQueue = {
      enqueue: async (job) => (queued.push(job.data as RunJobData), true),
      cancel: async () => ({ dropped: 0, aborted: 0 }),
    };
    for (const target of targets) {
      nock(GITHUB_API)
        .get(`/repos/acme/${target.repo}/issues`)
        .query(true)
        .reply(200, [])
        .post(`/repos/acme/${target.repo}/issues`)
        .reply(201, { number: 3, title: "aider-bot schedule: add a changelog entry" })
        .get(`/repos/acme/${target.repo}/issues/3/comments`)
        .query(true)
        .times(2)
        .reply(200, [])
        .post(`/repos/acme/${target.repo}/issues/3/comments`)
        .reply(201, { id: 99 });
      const schedule = target.config.schedules[0]!;
      expect(
        await fireSchedule({
          api,
          target,
          schedule,
          key: `k-${target.repo}`,
          botLogin: "aider-bot[bot]",
          runs,
          defaults: { model: "gpt-4o" },
          now: new Date(0),
        }),
      ).toBe(true);
    }
    expect(queued.map((c) => c.req.language)).toEqual(["TypeScript", undefined]);
  });
});
