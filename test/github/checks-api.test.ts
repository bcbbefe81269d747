import nock from "nock";
import { listCheckRunAnnotations, listCheckRunsForRef, readJobLog } from "../../src/github/checks-api.js";
import { GitHubError } from "../../src/github/github-error.js";
import { GITHUB_API as API, testOctokit, useStrictNock } from "../helpers/test-octokit.js";

const R = "/repos/acme/web";
const where = { owner: "acme", repo: "web" };
const run = (id: number) => ({ id, name: `check ${id}`, conclusion: "failure", output: { annotations_count: 0 } });

describe("check runs, annotations and job logs over Octokit and nock", () => {
  useStrictNock(nock);

  it("lists a commit's latest check runs across pages (GitHub's list is namespaced under check_runs)", async () => {
    nock(API)
      .get(`${R}/commits/abc/check-runs`)
      .query({ filter: "latest", per_page: "100" })
      .reply(
        200,
        { total_count: 2, check_runs: [run(1)] },
        {
          link: `<${API}${R}/commits/abc/check-runs?filter=latest&per_page=100&page=2>; rel="next"`,
        },
      )
      .get(`${R}/commits/abc/check-runs`)
      .query({ filter: "latest", per_page: "100", page: "2" })
      .reply(200, { total_count: 2, check_runs: [run(2)] });
    const { items, truncated } = await listCheckRunsForRef(testOctokit(), { ...where, ref: "abc", maxPages: 3 });
    expect(items.map((r) => r.name)).toEqual(["check 1", "check 2"]);
    expect(truncated).toBe(false);
  });

  it("stops at maxPages and says the list was cut when GitHub links a next page", async () => {
    nock(API)
      .get(`${R}/commits/abc/check-runs`)
      .query(true)
      .reply(
        200,
        { total_count: 300, check_runs: [run(1)] },
        {
          link: `<${API}${R}/commits/abc/check-runs?filter=latest&per_page=100&page=2>; rel="next"`,
        },
      );
    const { items, truncated } = await listCheckRunsForRef(testOctokit(), { ...where, ref: "abc", maxPages: 1 });
    expect(items).toHaveLength(1);
    expect(truncated).toBe(true);
  });

  it("maps a refused check-runs list to a GitHubError saying what was read and what to do", async () => {
    nock(API)
      .get(`${R}/commits/abc/check-runs`)
      .query(true)
      .reply(403, { message: "Resource not accessible by integration" });
    const error: unknown = await listCheckRunsForRef(testOctokit(), { ...where, ref: "abc", maxPages: 3 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GitHubError);
    expect(error).toMatchObject({ kind: "forbidden", status: 403 });
    expect(String(error)).toMatch(/Listing the check runs of acme\/web@abc failed: .*lacks a permission/);
  });

  it("reads a check run's annotations", async () => {
    const annotation = {
      path: "a.ts",
      start_line: 3,
      end_line: 3,
      start_column: null,
      end_column: null,
      annotation_level: "failure",
      title: "T",
      message: "boom",
      raw_details: null,
      blob_href: "https://github.com/acme/web/blob/abc/a.ts",
    };
    nock(API).get(`${R}/check-runs/7/annotations`).query({ per_page: "50" }).reply(200, [annotation]);
    expect(await listCheckRunAnnotations(testOctokit(), { ...where, checkRunId: 7, perPage: 50 })).toEqual([
      annotation,
    ]);
  });

  it("maps a missing check run's annotations to a not-found GitHubError", async () => {
    nock(API).get(`${R}/check-runs/7/annotations`).query(true).reply(404, { message: "Not Found" });
    await expect(
      listCheckRunAnnotations(testOctokit(), { ...where, checkRunId: 7, perPage: 50 }),
    ).rejects.toMatchObject({
      name: "GitHubError",
      kind: "not-found",
      message: expect.stringContaining("Reading the annotations of check run 7 on acme/web failed"),
    });
  });

  it("reads a job's log through GitHub's redirect to the log's short-lived address", async () => {
    nock(API).get(`${R}/actions/jobs/5/logs`).reply(302, "", { Location: "https://pipelines.example.net/log/5?sig=x" });
    nock("https://pipelines.example.net")
      .get("/log/5")
      .query({ sig: "x" })
      .reply(200, "line 1\nError: boom\n", { "Content-Type": "text/plain" });
    expect(await readJobLog(testOctokit(), { ...where, jobId: 5 })).toBe("line 1\nError: boom\n");
  });

  it("maps an expired job log (410) to a not-found GitHubError keeping the status", async () => {
    nock(API).get(`${R}/actions/jobs/5/logs`).reply(410, { message: "Gone" });
    await expect(readJobLog(testOctokit(), { ...where, jobId: 5 })).rejects.toMatchObject({
      name: "GitHubError",
      kind: "not-found",
      status: 410,
      message: expect.stringContaining("Reading the log of job 5 on acme/web failed"),
    });
  });
});
