import nock from "nock";
import {
  callGitHub,
  classifyGitHubError,
  GitHubError,
  isGitHubFailure,
  toGitHubError,
} from "../../src/github/github-error.js";
import { GITHUB_API, testOctokit } from "../helpers/test-octokit.js";

/** The shape of Octokit's RequestError that the classifier reads. */
function httpError(status: number, message: string, headers: Record<string, string> = {}) {
  return Object.assign(new Error(message), { status, response: { status, headers, data: { message } } });
}

describe("classifyGitHubError", () => {
  const now = 1_700_000_000_000;
  it.each([
    [404, "Not Found", {}, "not-found"],
    [410, "Gone", {}, "not-found"],
    [403, "Resource not accessible by integration", {}, "forbidden"],
    [403, "API rate limit exceeded for installation", { "x-ratelimit-remaining": "0" }, "rate-limited"],
    [403, "You have exceeded a secondary rate limit", {}, "rate-limited"],
    [403, "Forbidden", { "retry-after": "30" }, "rate-limited"],
    [429, "Too Many Requests", {}, "rate-limited"],
    [422, "Validation Failed", {}, "validation"],
    [401, "Bad credentials", {}, "unauthorized"],
    [500, "Internal error", {}, "unavailable"],
    [503, "Unavailable", {}, "unavailable"],
    [409, "Conflict", {}, "other"],
  ] as const)("%d %s, headers %j → %s", (status, message, headers, kind) => {
    expect(classifyGitHubError(httpError(status, message, headers), now)).toMatchObject({
      kind,
      status,
      githubMessage: message,
    });
  });

  it("says how long to wait: retry-after, else until the quota resets", () => {
    expect(
      classifyGitHubError(httpError(403, "secondary rate limit", { "retry-after": "60" }), 0)?.retryAfterSeconds,
    ).toBe(60);
    const reset = String(1_700_000_090);
    expect(
      classifyGitHubError(
        httpError(403, "rate limit", { "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset }),
        1_700_000_000_000,
      )?.retryAfterSeconds,
    ).toBe(90);
  });

  it("is null for errors that are not HTTP errors (bugs surface as they are)", () => {
    expect(classifyGitHubError(new TypeError("x is undefined"))).toBeNull();
    expect(classifyGitHubError("text")).toBeNull();
    const bug = new RangeError("bad");
    expect(toGitHubError(bug, "Doing it")).toBe(bug);
  });

  it("keeps the detail of a 422's errors, where GitHub says what was invalid", () => {
    const error = Object.assign(new Error("x"), {
      status: 422,
      response: {
        headers: {},
        data: {
          message: "Validation Failed",
          errors: [
            {
              resource: "PullRequest",
              code: "custom",
              message: "Draft pull requests are not supported in this repository.",
            },
            "second",
            { code: "missing_field" },
          ],
        },
      },
    });
    expect(classifyGitHubError(error)?.githubMessage).toBe(
      "Validation Failed: Draft pull requests are not supported in this repository.; second; missing_field",
    );
  });

  it("caps GitHub's message", () => {
    expect(classifyGitHubError(httpError(422, "y".repeat(5_000)))?.githubMessage.length).toBeLessThanOrEqual(301);
  });
});

describe("GitHubError", () => {
  it("names what we were doing, what happened and what to do, and keeps status and cause", () => {
    const cause = httpError(403, "Resource not accessible by integration");
    const error = toGitHubError(cause, "Opening a pull request on acme/web") as GitHubError;
    expect(error).toBeInstanceOf(GitHubError);
    expect(error.message).toBe(
      "Opening a pull request on acme/web failed: GitHub refused it (403): the App lacks a permission this needs — an owner can grant it in the App's settings and accept it on the installation (GitHub said: Resource not accessible by integration).",
    );
    expect(error.status).toBe(403);
    expect(error.cause).toBe(cause);
    expect(toGitHubError(error, "again")).toBe(error);
    expect(isGitHubFailure(error, "forbidden")).toBe(true);
    expect(isGitHubFailure(cause, "forbidden")).toBe(true);
    expect(isGitHubFailure(cause, "not-found")).toBe(false);
    expect(isGitHubFailure(new Error("plain"))).toBe(false);
  });

  describe("from a real Octokit request", () => {
    beforeEach(() => nock.disableNetConnect());
    afterEach(() => {
      nock.cleanAll();
      nock.enableNetConnect();
    });

    it("wraps Octokit's RequestError with the rate-limit wait GitHub asked for", async () => {
      nock(GITHUB_API).get("/repos/acme/web").reply(429, { message: "slow down" }, { "retry-after": "7" });
      const api = testOctokit();
      const error = await callGitHub("Reading acme/web", () =>
        api.rest.repos.get({ owner: "acme", repo: "web" }),
      ).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: "GitHubError", kind: "rate-limited", status: 429, retryAfterSeconds: 7 });
      expect((error as Error).message).toMatch(
        /^Reading acme\/web failed: GitHub's rate limit was hit \(429\); retry in 7 s/,
      );
    });
  });
});
