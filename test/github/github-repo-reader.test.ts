import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import nock from "nock";
import { createGitHubRepoReader } from "../../src/github/github-repo-reader.js";
import { GITHUB_API as API, testOctokit, useStrictNock } from "../helpers/test-octokit.js";

const R = "/repos/acme/web";
const where = { owner: "acme", repo: "web", ref: "main" };
const entry = (name: string, type: string) => ({
  type,
  size: 0,
  name,
  path: `.github/workflows/${name}`,
  sha: "s",
  url: "",
  git_url: null,
  html_url: null,
  download_url: null,
  _links: { self: "", git: null, html: null },
});

describe("createGitHubRepoReader over Octokit and nock", () => {
  useStrictNock(nock);

  it("lists a directory (sub-directories end in /) and reads a file's raw text, each once", async () => {
    nock(API)
      .get(`${R}/contents/.github%2Fworkflows`)
      .query({ ref: "main" })
      .reply(200, [entry("ci.yml", "file"), entry("reusable", "dir")])
      .get(`${R}/contents/.github%2Fworkflows%2Fci.yml`)
      .query({ ref: "main" })
      .matchHeader("accept", "application/vnd.github.v3.raw")
      .reply(200, "on: push\n", { "content-type": "text/plain; charset=utf-8" });
    const reader = createGitHubRepoReader(testOctokit(), where);
    expect(await reader.list(".github/workflows")).toEqual(["ci.yml", "reusable/"]);
    expect(await reader.list(".github/workflows")).toEqual(["ci.yml", "reusable/"]);
    expect(await reader.read(".github/workflows/ci.yml")).toBe("on: push\n");
  });

  it("lists the root with a documented call (the git trees API; GET …/contents without a path is not in the OpenAPI description)", async () => {
    const described = readFileSync(createRequire(import.meta.url).resolve("@octokit/openapi-types/types.d.ts"), "utf8");
    expect(described).toContain('"/repos/{owner}/{repo}/git/trees/{tree_sha}": {');
    expect(described).not.toContain('"/repos/{owner}/{repo}/contents": {');
    nock(API)
      .get(`${R}/git/trees/main`)
      .reply(200, {
        sha: "t",
        truncated: false,
        tree: [
          { path: "package.json", mode: "100644", type: "blob", sha: "a" },
          { path: "src", mode: "040000", type: "tree", sha: "b" },
        ],
      });
    expect(await createGitHubRepoReader(testOctokit(), where).list("")).toEqual(["package.json", "src/"]);
  });

  it("treats 404 as absent: an empty directory, a null file", async () => {
    nock(API)
      .get(`${R}/contents/.github%2Fworkflows`)
      .query(true)
      .reply(404, { message: "Not Found" })
      .get(`${R}/contents/package.json`)
      .query(true)
      .reply(404, { message: "Not Found" });
    const reader = createGitHubRepoReader(testOctokit(), where);
    expect(await reader.list(".github/workflows")).toEqual([]);
    expect(await reader.read("package.json")).toBeNull();
  });

  it("throws any other failure as a GitHubError, so an outage is not read as a repository without checks", async () => {
    nock(API)
      .get(`${R}/contents/package.json`)
      .query(true)
      .reply(403, { message: "Resource not accessible by integration" });
    await expect(createGitHubRepoReader(testOctokit(), where).read("package.json")).rejects.toMatchObject({
      name: "GitHubError",
      kind: "forbidden",
      message: expect.stringContaining("Reading package.json of acme/web@main failed"),
    });
  });
});
