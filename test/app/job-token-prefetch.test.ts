import nock from "nock";
import { createJobTokenPrefetch, type JobTokens } from "../../src/app/job-token-prefetch.js";
import type { ForkPool } from "../../src/exec/fork-worker.js";
import { handleOneRun } from "../helpers/handle-one-run.js";
import { GITHUB_API as API, useStrictNock } from "../helpers/test-octokit.js";

const JOB = { jobId: "d1", installationId: 7, repo: "web" };

describe("createJobTokenPrefetch: a run's tokens minted at triage, taken by its handler", () => {
  const counting = () => {
    const calls: string[] = [];
    const mint = async (installationId: number, repo: string): Promise<JobTokens> => {
      calls.push(`${installationId}/${repo}`);
      return { apiToken: `api-${calls.length}`, gitToken: `git-${calls.length}` };
    };
    return { calls, mint };
  };

  it("mints when triage starts the job, and hands the pair out once", async () => {
    const { calls, mint } = counting();
    const tokens = createJobTokenPrefetch(mint);
    tokens.start(JOB);
    expect(calls).toEqual(["7/web"]);
    await expect(tokens.take(JOB)).resolves.toEqual({ apiToken: "api-1", gitToken: "git-1" });
    expect(tokens.take(JOB)).toBeNull();
  });

  it("gives nothing for a job it did not start, a pair grown old in the queue, or another repository", () => {
    let now = 0;
    const tokens = createJobTokenPrefetch(counting().mint, { now: () => now, maxAgeMs: 1_000 });
    expect(tokens.take(JOB)).toBeNull();
    tokens.start(JOB);
    now = 1_001;
    expect(tokens.take(JOB)).toBeNull();
    tokens.start(JOB);
    expect(tokens.take({ ...JOB, repo: "other" })).toBeNull();
    tokens.start(JOB);
    expect(tokens.take({ ...JOB, installationId: 8 })).toBeNull();
  });

  it("forgets a dropped job's pair, and the oldest pairs past its size", () => {
    const tokens = createJobTokenPrefetch(counting().mint, { maxEntries: 2 });
    tokens.start(JOB);
    tokens.drop(JOB.jobId);
    expect(tokens.take(JOB)).toBeNull();
    for (const id of ["a", "b", "c"]) tokens.start({ ...JOB, jobId: id });
    expect(tokens.take({ ...JOB, jobId: "a" })).toBeNull();
    expect(tokens.take({ ...JOB, jobId: "c" })).not.toBeNull();
  });

  it("a failed mint is no unhandled rejection; the job's take sees it fail", async () => {
    const tokens = createJobTokenPrefetch(async () => Promise.reject(new Error("GitHub said no")));
    tokens.start(JOB);
    await new Promise((r) => setImmediate(r));
    await expect(tokens.take(JOB)).rejects.toThrow("GitHub said no");
  });
});

describe("the run handler's tokens, over nock", () => {
  useStrictNock(nock);

  /** The handler over a pool that records what its job process would have been given. */
  async function handle(tokens?: ReturnType<typeof createJobTokenPrefetch>) {
    const given: unknown[] = [];
    const pool: ForkPool = {
      run: async (options) => (given.push(options.input), { kind: "done", result: { outcome: "pushed" } }),
      idlePid: () => undefined,
      close: () => undefined,
    };
    await handleOneRun(pool, tokens ? { tokens } : {});
    return given[0] as { apiToken: string; gitToken: string };
  }

  it("a job whose tokens triage minted starts with them, without minting again", async () => {
    const tokens = createJobTokenPrefetch(async () => ({ apiToken: "ghs_triage_api", gitToken: "ghs_triage_git" }));
    tokens.start({ jobId: "d1", installationId: 7, repo: "web" });
    // Strict nock: any mint here would be an unanswered request and fail the handler.
    expect(await handle(tokens)).toMatchObject({ apiToken: "ghs_triage_api", gitToken: "ghs_triage_git" });
  });

  it("mints the pair itself when triage's mint failed (its own error is then the one reported)", async () => {
    nock(API)
      .post("/app/installations/7/access_tokens")
      .reply(201, { token: "ghs_job_a" })
      .post("/app/installations/7/access_tokens")
      .reply(201, { token: "ghs_job_b" });
    const tokens = createJobTokenPrefetch(async () => Promise.reject(new Error("timeout")));
    tokens.start({ jobId: "d1", installationId: 7, repo: "web" });
    const got = await handle(tokens);
    expect([got.apiToken, got.gitToken].sort()).toEqual(["ghs_job_a", "ghs_job_b"]);
  });
});
