import nock from "nock";
import { JOB_API_TOKEN_PERMISSIONS, mintJobApiToken, narrowToGrant } from "../../src/app/mint-repo-token.js";
import { GITHUB_API as API, testOctokit, useStrictNock } from "../helpers/test-octokit.js";

const NOT_GRANTED = { message: "The permissions requested are not granted to this installation." };
const { checks: _checks, ...withoutChecks } = JOB_API_TOKEN_PERMISSIONS;

describe("mintJobApiToken, over Octokit and nock", () => {
  useStrictNock(nock);

  it("asks only for what the installation granted: no checks when it declined them", async () => {
    nock(API)
      .get("/app/installations/7")
      .reply(200, {
        id: 7,
        permissions: { contents: "write", issues: "write", pull_requests: "write", metadata: "read" },
      })
      .post("/app/installations/7/access_tokens", { repositories: ["web"], permissions: withoutChecks })
      .reply(201, { token: "ghs_no_checks" });
    expect(await mintJobApiToken(testOctokit(), 7, "web")).toEqual({
      token: "ghs_no_checks",
      permissions: withoutChecks,
    });
  });

  it("mints again without checks when GitHub answers that they are not granted (the grant could not be read)", async () => {
    nock(API)
      .get("/app/installations/7")
      .reply(500, { message: "boom" })
      .post("/app/installations/7/access_tokens", {
        repositories: ["web"],
        permissions: { ...JOB_API_TOKEN_PERMISSIONS },
      })
      .reply(422, NOT_GRANTED)
      .post("/app/installations/7/access_tokens", { repositories: ["web"], permissions: withoutChecks })
      .reply(201, { token: "ghs_second" });
    expect((await mintJobApiToken(testOctokit(), 7, "web")).token).toBe("ghs_second");
  });

  it("does not hide a refusal of a permission the run cannot do without", async () => {
    nock(API)
      .get("/app/installations/7")
      .reply(200, { id: 7, permissions: { contents: "write", checks: "write", metadata: "read" } })
      .post("/app/installations/7/access_tokens", {
        repositories: ["web"],
        permissions: { ...JOB_API_TOKEN_PERMISSIONS },
      })
      .reply(422, NOT_GRANTED)
      .post("/app/installations/7/access_tokens", { repositories: ["web"], permissions: withoutChecks })
      .reply(422, NOT_GRANTED);
    await expect(mintJobApiToken(testOctokit(), 7, "web")).rejects.toThrow(/not granted/);
  });

  it("keeps checks when granted at write, drops them when only read", () => {
    expect(narrowToGrant(JOB_API_TOKEN_PERMISSIONS, { checks: "write" })).toEqual({ ...JOB_API_TOKEN_PERMISSIONS });
    expect(narrowToGrant(JOB_API_TOKEN_PERMISSIONS, { checks: "read" })).toEqual(withoutChecks);
  });
});
