import { ProbotOctokit } from "probot";
import { findComment, listComments } from "../../src/github/ensure-comment.js";
import { startFakeGitHub, type FakeGitHub } from "../../testkit/start-fake-github.js";

describe("the fake GitHub pages issue comments like GitHub", () => {
  let fake: FakeGitHub;
  beforeAll(async () => {
    fake = await startFakeGitHub({ sourceEnv: { PATH: process.env.PATH } });
  });
  afterAll(async () => {
    await fake.close();
  });

  it("sends a next-page link, so Octokit's paginate reads a thread longer than 100 comments", async () => {
    const repo = fake.state.addRepo("acme", "web", "main", {});
    repo.issues.set(1, { number: 1, title: "t", body: "", user: "ann", labels: [] });
    const now = new Date().toISOString();
    for (let i = 0; i < 150; i++) {
      const marker = i === 140 ? "<!-- aider-bot:run:late -->\n" : "";
      repo.comments.push({
        id: fake.state.id(),
        issueNumber: 1,
        body: `${marker}comment ${i}`,
        user: i === 140 ? fake.state.botLogin : "ann",
        createdAt: now,
        updatedAt: now,
      });
    }
    const quiet = () => undefined;
    const api = new ProbotOctokit({
      auth: { token: "t" },
      baseUrl: fake.apiUrl,
      retry: { enabled: false },
      throttle: { enabled: false },
      log: { debug: quiet, info: quiet, warn: quiet, error: quiet },
    });
    expect(await listComments(api, { owner: "acme", repo: "web", issueNumber: 1 })).toHaveLength(150);
    expect(
      await findComment(api, {
        owner: "acme",
        repo: "web",
        issueNumber: 1,
        marker: "<!-- aider-bot:run:late -->",
        botLogin: fake.state.botLogin,
      }),
    ).toMatchObject({
      body: expect.stringContaining("comment 140"),
    });
  });
});
