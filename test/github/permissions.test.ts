import nock from "nock";
import { lookupPermission, permissionFromApi } from "../../src/github/permissions.js";
import { GitHubError } from "../../src/github/github-error.js";
import { GITHUB_API, testOctokit, useStrictNock } from "../helpers/test-octokit.js";

const where = { owner: "acme", repo: "web", username: "ann" };
const route = "/repos/acme/web/collaborators/ann/permission";

describe("permissionFromApi", () => {
  it("reads role_name when present, and a custom role's base permission", () => {
    expect(permissionFromApi({ permission: "write", role_name: "maintain" })).toBe("maintain");
    expect(permissionFromApi({ permission: "read", role_name: "custom-role" })).toBe("read");
    expect(permissionFromApi({ permission: "weird", role_name: "custom-role" })).toBe("none");
    expect(permissionFromApi({})).toBe("none");
  });
});

describe("lookupPermission over Octokit and nock", () => {
  useStrictNock(nock);

  it("asks the collaborator-permission endpoint", async () => {
    nock(GITHUB_API)
      .get(route)
      .reply(200, { permission: "write", role_name: "maintain", user: { login: "ann" } });
    expect(await lookupPermission(testOctokit(), where)).toBe("maintain");
  });

  it("treats 404 as no access", async () => {
    nock(GITHUB_API).get(route).reply(404, { message: "Not Found" });
    expect(await lookupPermission(testOctokit(), where)).toBe("none");
  });

  it("lets an outage or a missing App permission through as a typed error saying what was asked", async () => {
    nock(GITHUB_API).get(route).reply(502, { message: "Bad gateway" });
    const outage = await lookupPermission(testOctokit(), where).catch((e: unknown) => e);
    expect(outage).toBeInstanceOf(GitHubError);
    expect(outage).toMatchObject({ kind: "unavailable", status: 502 });
    expect((outage as Error).message).toMatch(/^Reading @ann's permission on acme\/web failed: GitHub is unavailable/);

    nock(GITHUB_API).get(route).reply(403, { message: "Resource not accessible by integration" });
    await expect(lookupPermission(testOctokit(), where)).rejects.toMatchObject({ kind: "forbidden" });
  });
});
