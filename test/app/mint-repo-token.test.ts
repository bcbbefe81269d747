import nock from "nock";
import { JOB_API_TOKEN_PERMISSIONS, mintJobApiToken } from "../../src/app/mint-repo-token.js";
import { GITHUB_API as API, testOctokit, useStrictNock } from "../helpers/test-octokit.js";

const NOT_GRANTED = { message: "The permissions requested are not granted to this installation." };
const { checks: _checks, ...withoutChecks } = JOB_API_TOKEN_PERMISSIONS;

describe("mintJobApiToken, over Octokit and nock", () => {
  useStrictNock(nock);

  /** Requests nock had no answer for (disableNetConnect refuses them, and the code may catch the refusal). */
  function unanswered(): { list: string[]; stop(): void } {
    const list: string[] = [];
    const record = (req: { method?: string; path?: string }) => list.push(`${req.method} ${req.path}`);
    nock.emitter.on("no match", record);
    return { list, stop: () => nock.emitter.removeListener("no match", record) };
  }

  it("an installation that granted everything: one request, the token asked for in full (no read of the grant first)", async () => {
    nock(API)
      .post("/app/installations/7/access_tokens", {
        repositories: ["web"],
        permissions: { ...JOB_API_TOKEN_PERMISSIONS },
      })
      .reply(201, { token: "ghs_all" });
    const missed = unanswered();
    try {
      expect(await mintJobApiToken(testOctokit(), 7, "web")).toEqual({
        token: "ghs_all",
        permissions: { ...JOB_API_TOKEN_PERMISSIONS },
      });
      expect(missed.list).toEqual([]);
    } finally {
      missed.stop();
    }
  });

  it("mints again without checks when GitHub answers that they are not granted (an installation that declined them)", async () => {
    nock(API)
      .post("/app/installations/7/access_tokens", {
        repositories: ["web"],
        permissions: { ...JOB_API_TOKEN_PERMISSIONS },
      })
      .reply(422, NOT_GRANTED)
      .post("/app/installations/7/access_tokens", { repositories: ["web"], permissions: withoutChecks })
      .reply(201, { token: "ghs_second" });
    expect(await mintJobApiToken(testOctokit(), 7, "web")).toEqual({ token: "ghs_second", permissions: withoutChecks });
  });

  it("another failure of the mint is not retried", async () => {
    nock(API)
      .post("/app/installations/7/access_tokens", {
        repositories: ["web"],
        permissions: { ...JOB_API_TOKEN_PERMISSIONS },
      })
      .reply(404, { message: "Not Found" });
    await expect(mintJobApiToken(testOctokit(), 7, "web")).rejects.toThrow();
  });

  it("does not hide a refusal of a permission the run cannot do without", async () => {
    nock(API)
      .post("/app/installations/7/access_tokens", {
        repositories: ["web"],
        permissions: { ...JOB_API_TOKEN_PERMISSIONS },
      })
      .reply(422, NOT_GRANTED)
      .post("/app/installations/7/access_tokens", { repositories: ["web"], permissions: withoutChecks })
      .reply(422, NOT_GRANTED);
    await expect(mintJobApiToken(testOctokit(), 7, "web")).rejects.toThrow(/not granted/);
  });
});
