import { routeRequest, type RouteRequest } from "../../testkit/fake-github-routes.js";
import { seedPullRequest, seedRepo } from "../../testkit/seed-repo.js";
import { startFakeGitHub, type FakeGitHub } from "../../testkit/start-fake-github.js";

/** The fake's REST routes answered in-process, through the route tables (a request as the server would hand it). */
describe("the fake GitHub's route tables", () => {
  let fake: FakeGitHub;
  const call = (method: string, path: string, body: Record<string, unknown> = {}, token?: string) => {
    const url = new URL(`http://x${path}`);
    const req: RouteRequest = {
      method,
      segments: url.pathname.split("/").filter(Boolean),
      query: url.searchParams,
      body,
      ...(token ? { authorization: `token ${token}` } : {}),
    };
    const { state, exec, bareDir, apiUrl, webUrl } = fake;
    return routeRequest({ state, exec, bareDir, apiUrl, webUrl }, req);
  };
  beforeAll(async () => {
    fake = await startFakeGitHub({ sourceEnv: { PATH: process.env.PATH } });
    const repo = await seedRepo(fake, {
      owner: "acme",
      name: "web",
      files: { "README.md": "# web\n", "src/a.ts": "export const a = 1;\n" },
      permissions: { ann: "maintain" },
    });
    await seedPullRequest(fake, repo, { title: "p", head: "feat", user: "ann", files: { "b.ts": "b\n" } });
  });
  afterAll(async () => {
    await fake.close();
  });

  it("answers the App's routes outside a repository, and refuses a token for a repository it cannot reach", async () => {
    expect((await call("GET", "/app/installations")).json).toEqual([
      { id: 1, account: expect.objectContaining({ login: "acme" }), permissions: expect.any(Object) },
    ]);
    const scoped = await call("POST", "/app/installations/1/access_tokens", { repositories: ["web"] });
    expect(scoped).toMatchObject({ status: 201, json: { repository_selection: "selected" } });
    expect((await call("POST", "/app/installations/1/access_tokens", { repositories: ["nope"] })).status).toBe(422);
  });

  it("mints no token asking for a permission the installation did not grant, and refuses its tokens Check Runs", async () => {
    const installation = fake.state.installations.get(1)!;
    const before = { ...installation.permissions };
    delete installation.permissions.checks;
    try {
      expect((await call("GET", "/app/installations/1")).json).toMatchObject({
        id: 1,
        permissions: installation.permissions,
      });
      const refused = await call("POST", "/app/installations/1/access_tokens", {
        repositories: ["web"],
        permissions: { issues: "write", checks: "write" },
      });
      expect(refused).toMatchObject({
        status: 422,
        json: { message: "The permissions requested are not granted to this installation." },
      });
      const upgraded = await call("POST", "/app/installations/1/access_tokens", { permissions: { actions: "write" } });
      expect(upgraded.status).toBe(422);
      const minted = await call("POST", "/app/installations/1/access_tokens", { repositories: ["web"] });
      expect(minted.json).toMatchObject({ permissions: installation.permissions });
      const token = (minted.json as { token: string }).token;
      const run = await call("POST", "/repos/acme/web/check-runs", { name: "a", head_sha: "0".repeat(40) }, token);
      expect(run).toMatchObject({ status: 403, json: { message: "Resource not accessible by integration" } });
      expect((await call("POST", "/repos/acme/web/issues/1/comments", { body: "ok" }, token)).status).toBe(201);
    } finally {
      installation.permissions = before;
    }
  });

  it("mints a token by the installation account's repository names: a fork of the same name elsewhere is not one", async () => {
    await seedRepo(fake, { owner: "outsider", name: "web", files: { "README.md": "# fork\n" }, permissions: {} });
    const minted = await call("POST", "/app/installations/1/access_tokens", { repositories: ["web"] });
    expect(minted).toMatchObject({ status: 201, json: { repositories: [{ full_name: "acme/web" }] } });
  });

  it("creates, lists and edits issues and comments, and records reactions with their subject", async () => {
    const created = await call("POST", "/repos/acme/web/issues", { title: "Bug", body: "b" });
    const number = (created.json as { number: number }).number;
    expect(created.status).toBe(201);
    expect((await call("PATCH", `/repos/acme/web/issues/${number}`, { state: "closed" })).json).toMatchObject({
      state: "closed",
    });
    expect((await call("GET", "/repos/acme/web/issues?state=closed")).json).toEqual([
      expect.objectContaining({ number }),
    ]);
    const comment = await call("POST", `/repos/acme/web/issues/${number}/comments`, { body: "hi" });
    const id = (comment.json as { id: number }).id;
    expect((await call("PATCH", `/repos/acme/web/issues/comments/${id}`, { body: "edited" })).json).toMatchObject({
      body: "edited",
    });
    await call("POST", `/repos/acme/web/issues/comments/${id}/reactions`, { content: "eyes" });
    expect(fake.state.repo("acme", "web")?.reactions.at(-1)).toMatchObject({
      subject: `issues/comments/${id}`,
      content: "eyes",
    });
  });

  it("refuses a body over GitHub's limit before any route, as GitHub does", async () => {
    const out = await call("POST", "/repos/acme/web/issues/1/comments", { body: "x".repeat(65_537) });
    expect(out).toMatchObject({ status: 422, json: { message: "Validation Failed" } });
  });

  it("reads pull requests and asks reviewers, never the head branch's name", async () => {
    const pull = await call("GET", "/repos/acme/web/pulls/1");
    expect(pull.json).toMatchObject({ number: 1, head: { ref: "feat" }, base: { ref: "main" } });
    const asked = await call("POST", "/repos/acme/web/pulls/1/requested_reviewers", { reviewers: ["bob", "feat"] });
    expect(asked.json).toMatchObject({ requested_reviewers: [expect.objectContaining({ login: "bob" })] });
    expect((await call("GET", "/repos/acme/web/pulls/99")).status).toBe(404);
  });

  it("serves contents (files and folders), permissions and check runs", async () => {
    expect(await call("GET", "/repos/acme/web/contents/README.md")).toMatchObject({ status: 200, text: "# web\n" });
    expect((await call("GET", "/repos/acme/web/contents/src")).json).toEqual([
      { name: "a.ts", path: "src/a.ts", type: "file" },
    ]);
    expect((await call("GET", "/repos/acme/web/collaborators/ann/permission")).json).toMatchObject({
      permission: "write",
      role_name: "maintain",
    });
    const run = await call("POST", "/repos/acme/web/check-runs", { name: "aider-bot", head_sha: "0".repeat(40) });
    const id = (run.json as { id: number }).id;
    const done = await call("PATCH", `/repos/acme/web/check-runs/${id}`, {
      status: "completed",
      conclusion: "success",
    });
    expect(done.json).toMatchObject({ status: "completed", conclusion: "success" });
  });

  it("answers 404 for a route it does not know, a method a route does not take, and an unknown repository", async () => {
    expect((await call("GET", "/repos/acme/web/unknown/thing")).status).toBe(404);
    expect((await call("DELETE", "/repos/acme/web/issues/1")).status).toBe(404);
    expect((await call("GET", "/repos/acme/nope/issues")).status).toBe(404);
  });
});
