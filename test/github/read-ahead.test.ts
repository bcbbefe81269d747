import nock from "nock";
import { createGitHubRepoReader } from "../../src/github/github-repo-reader.js";
import { asRecordedRead, readKey, recordReads, replayReads, type RecordedRead } from "../../src/github/read-ahead.js";
import { GITHUB_API, testOctokit, useStrictNock } from "../helpers/test-octokit.js";

const REPO = "/repos/acme/web";
const where = { owner: "acme", repo: "web", ref: "main" };

const octokit = (token: string) => testOctokit(GITHUB_API, token);

/** An Octokit recording its reads into a map of answers by key (lists: a key read twice has two answers). */
function recorder(token = "ghs_api") {
  const api = octokit(token);
  const keys: string[] = [];
  const answers = new Map<string, Promise<RecordedRead | null>[]>();
  recordReads(api, (key, answer) => {
    keys.push(key);
    answers.set(key, [...(answers.get(key) ?? []), answer]);
  });
  const answer = async (key: string) => (await answers.get(key)?.shift()) ?? null;
  return { api, keys, answer };
}

describe("recordReads / replayReads: GitHub reads made by one process, answered in another", () => {
  useStrictNock(nock);

  it("records GETs (raw files, listings, 404s) and GraphQL queries with the caller's token, and replays them without GitHub", async () => {
    nock(GITHUB_API, { reqheaders: { authorization: "token ghs_api" } })
      .get(`${REPO}/contents/package.json`)
      .query({ ref: "main" })
      .reply(200, '{"scripts":{"test":"jest"}}', { "content-type": "text/plain; charset=utf-8" })
      .get(`${REPO}/contents/.travis.yml`)
      .query({ ref: "main" })
      .reply(404, { message: "Not Found" })
      .get(`${REPO}/git/trees/main`)
      .reply(200, {
        tree: [
          { path: "package.json", type: "blob" },
          { path: "src", type: "tree" },
        ],
      })
      .post("/graphql", (b: { query: string }) => b.query.startsWith("query"))
      .reply(200, { data: { repository: { id: "R1" } } });
    const triage = recorder();
    const ahead = createGitHubRepoReader(triage.api, where);
    const read = async (reader: ReturnType<typeof createGitHubRepoReader>) => [
      await reader.read("package.json"),
      await reader.read(".travis.yml"),
      await reader.list(""),
    ];
    const query = (api: ReturnType<typeof octokit>) =>
      api.graphql('query($o: String!) { repository(owner: $o, name: "web") { id } }', { o: "acme" });
    const made = [...(await read(ahead)), await query(triage.api)];
    expect(triage.keys).toHaveLength(4);

    // The job: nothing left in nock, and no network: every read is answered from what triage recorded.
    const job = octokit("ghs_job");
    replayReads(job, triage.answer);
    const replayed = [...(await read(createGitHubRepoReader(job, where))), await query(job)];
    expect(replayed).toEqual(made);
    expect(made).toEqual(['{"scripts":{"test":"jest"}}', null, ["package.json", "src/"], { repository: { id: "R1" } }]);
  });

  it("never records a write, a GraphQL mutation or a failure other than 404 (those reach GitHub again)", async () => {
    nock(GITHUB_API)
      .post(`${REPO}/issues/1/comments`)
      .reply(201, { id: 5 })
      .post("/graphql", (b: { query: string }) => b.query.startsWith("mutation"))
      .reply(200, { data: { x: 1 } })
      .get(`${REPO}/git/trees/main`)
      .reply(500, { message: "boom" });
    const triage = recorder();
    await triage.api.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
      owner: "acme",
      repo: "web",
      issue_number: 1,
      body: "hi",
    });
    await triage.api.graphql("mutation { x }");
    await expect(createGitHubRepoReader(triage.api, where).list("")).rejects.toThrow();
    expect(triage.keys).toHaveLength(1);
    await expect(triage.answer(triage.keys[0]!)).resolves.toBeNull();
  });

  it("a read with no answer (none made ahead, a failed one) goes to GitHub, and so does every read after stop()", async () => {
    nock(GITHUB_API, { reqheaders: { authorization: "token ghs_job" } })
      .get(`${REPO}/git/trees/main`)
      .reply(200, { tree: [{ path: "a.txt", type: "blob" }] })
      .get(`${REPO}/git/trees/main`)
      .reply(200, { tree: [{ path: "b.txt", type: "blob" }] });
    const job = octokit("ghs_job");
    const asked: string[] = [];
    const stale: RecordedRead = { status: 200, url: "", headers: {}, data: { tree: [{ path: "old", type: "blob" }] } };
    const replay = replayReads(job, async (key) => (asked.push(key), asked.length === 1 ? null : stale));
    await expect(createGitHubRepoReader(job, where).list("")).resolves.toEqual(["a.txt"]);
    replay.stop();
    await expect(createGitHubRepoReader(job, where).list("")).resolves.toEqual(["b.txt"]);
    expect(asked).toHaveLength(1);
  });

  it("keys tell reads apart by URL, query, media type and GraphQL body; writes have none", () => {
    const api = octokit("t");
    const key = (route: string, params: Record<string, unknown> = {}) =>
      readKey(api, api.request.endpoint.merge(route, params) as never);
    const raw = key("GET /repos/{owner}/{repo}/contents/{path}", {
      owner: "a",
      repo: "b",
      path: "x",
      ref: "main",
      mediaType: { format: "raw" },
    });
    const json = key("GET /repos/{owner}/{repo}/contents/{path}", { owner: "a", repo: "b", path: "x", ref: "main" });
    const other = key("GET /repos/{owner}/{repo}/contents/{path}", { owner: "a", repo: "b", path: "x", ref: "dev" });
    expect(new Set([raw, json, other]).size).toBe(3);
    expect(key("POST /graphql", { query: "query { a }" })).not.toBe(key("POST /graphql", { query: "query { b }" }));
    expect(key("POST /graphql", { query: " mutation { a }" })).toBeNull();
    expect(key("PATCH /repos/{owner}/{repo}", { owner: "a", repo: "b" })).toBeNull();
  });

  it("an answer from another process is checked for shape", () => {
    expect(asRecordedRead({ status: 200, url: "u", headers: { etag: "x", n: 1, o: {} }, data: [1] })).toEqual({
      status: 200,
      url: "u",
      headers: { etag: "x", n: "1" },
      data: [1],
    });
    expect(asRecordedRead(null)).toBeNull();
    expect(asRecordedRead({ status: "200", url: "u", headers: {} })).toBeNull();
    expect(asRecordedRead("a sha")).toBeNull();
  });
});
