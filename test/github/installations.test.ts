import nock from "nock";
import {
  listInstallationRepositories,
  listInstallations,
  readAppIdentity,
  readRepoFile,
} from "../../src/github/installations.js";
import { GITHUB_API as API, nextPage, testOctokit, useStrictNock } from "../helpers/test-octokit.js";

const repo = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  owner: { login: "acme" },
  default_branch: "main",
  clone_url: `https://github.com/acme/${name}.git`,
  html_url: `https://github.com/acme/${name}`,
  archived: false,
  ...extra,
});

describe("installations and repository files, over Octokit and nock", () => {
  useStrictNock(nock);

  it("lists every installation, past the first page of 100", async () => {
    nock(API)
      .get("/app/installations")
      .query({ per_page: "100" })
      .reply(200, [{ id: 1, account: { login: "acme" } }], nextPage("/app/installations", 2))
      .get("/app/installations")
      .query({ per_page: "100", page: "2" })
      .reply(200, [{ id: 2, account: null }]);
    expect(await listInstallations(testOctokit())).toEqual([
      { id: 1, account: "acme" },
      { id: 2, account: "" },
    ]);
  });

  it("lists every repository of an installation, past the first page", async () => {
    nock(API)
      .get("/installation/repositories")
      .query({ per_page: "100" })
      .reply(200, { total_count: 2, repositories: [repo("web")] }, nextPage("/installation/repositories", 2))
      .get("/installation/repositories")
      .query({ per_page: "100", page: "2" })
      .reply(200, { total_count: 2, repositories: [repo("old", { archived: true })] });
    expect(await listInstallationRepositories(testOctokit())).toEqual([
      {
        owner: "acme",
        repo: "web",
        defaultBranch: "main",
        cloneUrl: "https://github.com/acme/web.git",
        htmlUrl: "https://github.com/acme/web",
        language: null,
        archived: false,
      },
      {
        owner: "acme",
        repo: "old",
        defaultBranch: "main",
        cloneUrl: "https://github.com/acme/old.git",
        htmlUrl: "https://github.com/acme/old",
        language: null,
        archived: true,
      },
    ]);
  });

  it("reads a file's raw text, null when it is missing, and says so when the path is a directory", async () => {
    nock(API)
      .get("/repos/acme/web/contents/.github%2Faider.yml")
      .matchHeader("accept", "application/vnd.github.v3.raw")
      .reply(200, "schedules: []\n", { "content-type": "application/vnd.github.raw" })
      .get("/repos/acme/web/contents/.github%2Faider.yml")
      .reply(200, "model: x\n", { "content-type": "text/plain; charset=utf-8" })
      .get("/repos/acme/web/contents/.github%2Faider.yml")
      .query({ ref: "dev" })
      .reply(404, { message: "Not Found" })
      .get("/repos/acme/web/contents/.github")
      .reply(200, [{ type: "file", name: "aider.yml" }]);
    const api = testOctokit();
    expect(await readRepoFile(api, { owner: "acme", repo: "web", path: ".github/aider.yml" })).toBe("schedules: []\n");
    expect(await readRepoFile(api, { owner: "acme", repo: "web", path: ".github/aider.yml" })).toBe("model: x\n");
    expect(await readRepoFile(api, { owner: "acme", repo: "web", path: ".github/aider.yml", ref: "dev" })).toBeNull();
    await expect(readRepoFile(api, { owner: "acme", repo: "web", path: ".github" })).rejects.toThrow(
      /Reading \.github from acme\/web failed: it is not a file/,
    );
  });

  it("reads the App's identity: login and commit e-mail", async () => {
    nock(API).get("/app").reply(200, { id: 9, slug: "aider-bot", name: "aider-bot" });
    expect(await readAppIdentity(testOctokit())).toEqual({
      slug: "aider-bot",
      id: 9,
      login: "aider-bot[bot]",
      email: "9+aider-bot[bot]@users.noreply.github.com",
    });
  });
});
