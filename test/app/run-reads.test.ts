import nock from "nock";
import pino from "pino";
import { createReadBook } from "../../src/app/reads-prefetch.js";
import { readJobInputs } from "../../src/app/run-reads.js";
import { DEFAULT_CONTEXT_BUDGET } from "../../src/config/context-budget.js";
import { createContextHooks } from "../../src/compose/create-context-hooks.js";
import { replayReads } from "../../src/github/read-ahead.js";
import { RepoGitHub } from "../../src/github/repo-github.js";
import type { LlmClient } from "../../src/llm/types.js";
import { resolveChecks } from "../../src/run/prepare/resolve-checks.js";
import type { RunRequest } from "../../src/run/run-request.js";
import { prTarget, runRequest } from "#testkit/builders/run-fixtures.js";
import { GITHUB_API, testOctokit } from "../helpers/test-octokit.js";

const REPO = "/repos/acme/web";
const CI = "name: ci\non: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm test\n";
const PACKAGE = '{"name":"web","scripts":{"test":"node --test"}}';

/**
 * GitHub for acme/web: the default branch holds package.json and one workflow, the pull request #2 one comment and
 * one changed file; everything else is absent. Every request and the token it came with are noted.
 */
function fakeGitHub(seen: string[]) {
  const text = { "content-type": "text/plain; charset=utf-8" };
  nock(GITHUB_API)
    .persist()
    .get(/.*/)
    .reply(function (uri) {
      seen.push(`${String(this.req.headers.authorization)} GET ${uri}`);
      const path = uri.split("?")[0]!;
      if (path === `${REPO}/git/trees/main`)
        return [
          200,
          {
            tree: [
              { path: "package.json", type: "blob" },
              { path: ".github", type: "tree" },
            ],
          },
        ];
      if (path === `${REPO}/contents/.github%2Fworkflows` || path === `${REPO}/contents/.github/workflows`)
        return [200, [{ name: "ci.yml", path: ".github/workflows/ci.yml", type: "file" }]];
      if (/contents\/\.github(%2F|\/)workflows(%2F|\/)ci\.yml$/.test(path)) return [200, CI, text];
      if (path === `${REPO}/contents/package.json`) return [200, PACKAGE, text];
      if (path === `${REPO}/issues/2/comments`)
        return [
          200,
          [{ id: 9, body: "please fix", user: { login: "ann", type: "User" }, created_at: "2024-01-01T00:00:00Z" }],
        ];
      if (path === `${REPO}/pulls/2/files`)
        return [
          200,
          [{ filename: "src/a.js", status: "modified", additions: 1, deletions: 0, patch: "@@ -1 +1 @@\n-a\n+b" }],
        ];
      if (/\/check-runs$/.test(path)) return [200, { total_count: 0, check_runs: [] }];
      return [404, { message: "Not Found" }];
    })
    .post("/graphql")
    .reply(function () {
      seen.push(`${String(this.req.headers.authorization)} POST /graphql`);
      return [200, { data: { repository: { pullRequest: null } } }];
    });
}

const jobOctokit = (token: string) => testOctokit(GITHUB_API, token);

/** What the job reads as it starts, through its own code: the check plan, and the context (with instructions). */
async function jobReads(req: RunRequest, api: ReturnType<typeof jobOctokit>) {
  const github = RepoGitHub.create({ octokit: api, owner: req.owner, repo: req.repo });
  const hooks = createContextHooks({
    req,
    api,
    llm: {} as LlmClient,
    botLogin: "aider-bot[bot]",
    webUrl: "https://github.com",
    count: (t) => t.length,
  });
  const [checks, context] = await Promise.all([
    resolveChecks(req.settings, github.reader(req.defaultBranch)),
    hooks.prContext!(req),
  ]);
  return { checks, context };
}

describe("readJobInputs: a job's first reads made at triage with its API token, answered to the job without GitHub", () => {
  const req = runRequest({
    jobId: "d1",
    target: prTarget(),
    context: { mode: { kind: "plain" }, budget: DEFAULT_CONTEXT_BUDGET, resolveThreads: false },
  });
  const env = { githubBaseUrl: GITHUB_API, throttle: false, sandbox: "bubblewrap" as const };

  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  it("reads the check plan and the context with the job's token, and the job's own reads then need no request", async () => {
    nock.disableNetConnect();
    // What the job reads when nothing was read ahead: the reference, and every read it makes.
    const direct: string[] = [];
    fakeGitHub(direct);
    const expected = await jobReads(req, jobOctokit("ghs_job"));
    expect(expected.checks.plan.test.map((c) => c.command)).toEqual(["npm test"]);
    expect(direct.length).toBeGreaterThan(5);
    nock.cleanAll();

    // Triage reads ahead with the job's API token.
    const atTriage: string[] = [];
    fakeGitHub(atTriage);
    const book = createReadBook();
    await readJobInputs(env, async () => "aider-bot[bot]", pino({ level: "silent" }))(req, "ghs_api", book.add);
    book.end();
    expect(atTriage.every((line) => line.startsWith("token ghs_api "))).toBe(true);
    expect(new Set(atTriage.map((l) => l.slice("token ghs_api ".length)))).toEqual(
      new Set(direct.map((l) => l.slice("token ghs_job ".length))),
    );
    nock.cleanAll();

    // The job: GitHub unreachable (no mock, no network), its reads answered from triage's, the same results.
    const api = jobOctokit("ghs_job");
    replayReads(api, book.answer);
    const replayed = await jobReads(req, api);
    expect(replayed.checks).toEqual(expected.checks);
    expect(replayed.context).toEqual(expected.context);
  });

  it("a job given nothing reads GitHub itself, as before", async () => {
    nock.disableNetConnect();
    const seen: string[] = [];
    fakeGitHub(seen);
    const api = jobOctokit("ghs_job");
    const book = createReadBook();
    book.end();
    replayReads(api, book.answer);
    const got = await jobReads(req, api);
    expect(got.checks.plan.test.map((c) => c.command)).toEqual(["npm test"]);
    expect(seen.length).toBeGreaterThan(5);
  });
});
