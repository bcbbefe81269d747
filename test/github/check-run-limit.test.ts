import { ProbotOctokit } from "probot";
import { completeCheckRun, startCheckRun } from "../../src/github/check-run.js";
import { seedRepo } from "../../testkit/seed-repo.js";
import { startFakeGitHub, type FakeGitHub } from "../../testkit/start-fake-github.js";

/** Check Run output against a fake that refuses, as GitHub does, `summary` or `text` over 65,535 characters. */
describe("Check Run output within GitHub's 65,535-character limit", () => {
  let fake: FakeGitHub;
  let api: InstanceType<typeof ProbotOctokit>;
  beforeAll(async () => {
    fake = await startFakeGitHub({ sourceEnv: { PATH: process.env.PATH } });
    await seedRepo(fake, { owner: "acme", name: "web", files: { "README.md": "# web\n" }, permissions: {} });
    api = new ProbotOctokit({
      auth: { token: "t" },
      baseUrl: fake.apiUrl,
      retry: { enabled: false },
      throttle: { enabled: false },
    });
  });
  afterAll(async () => {
    await fake.close();
  });

  it("the fake refuses one character over the limit with GitHub's 422", async () => {
    const id = (await startCheckRun(api, { owner: "acme", repo: "web", headSha: "0".repeat(40) }))!;
    const over = api.rest.checks.update({
      owner: "acme",
      repo: "web",
      check_run_id: id,
      output: { title: "t", summary: "s", text: "x".repeat(65_536) },
    });
    await expect(over).rejects.toMatchObject({ status: 422 });
  });

  it("a huge transcript and summary (with characters outside the BMP) are cut to fit and accepted", async () => {
    const id = (await startCheckRun(api, { owner: "acme", repo: "web", headSha: "0".repeat(40) }))!;
    const huge = "line with 🚀 and text\n".repeat(20_000);
    await completeCheckRun(api, {
      owner: "acme",
      repo: "web",
      id,
      conclusion: "success",
      title: "T",
      summary: huge,
      text: huge,
    });
    const run = fake.state.repo("acme", "web")!.checkRuns.find((r) => r.id === id)!;
    expect(run.status).toBe("completed");
    expect(run.output!.summary!.length).toBeLessThanOrEqual(65_535);
    expect(run.output!.text!.length).toBeLessThanOrEqual(65_535);
    expect(run.output!.text).toContain("(truncated)");
  });
});
