import { describeFailure } from "../../../src/context/fetch/describe-failure.js";
import { GitHubError } from "../../../src/github/github-error.js";

describe("describeFailure", () => {
  it.each([403, 404])("names the permission for HTTP %i, from the gateway's GitHubError too", (status) => {
    const error = new GitHubError("Reading x", { kind: "forbidden", status, githubMessage: "nope" });
    expect(describeFailure("The check runs", error)).toBe(
      `The check runs could not be read (HTTP ${status}: the App may lack the permission; see the README's "Permissions").`,
    );
  });

  it("gives the status of other HTTP failures, and the message of anything else", () => {
    const outage = new GitHubError("Reading x", { kind: "unavailable", status: 502, githubMessage: "" });
    expect(describeFailure("The diff", outage)).toBe(
      "The diff could not be read (HTTP 502); the run went on without it.",
    );
    expect(describeFailure("The diff", new Error("socket hang up"))).toBe(
      "The diff could not be read (socket hang up); the run went on without it.",
    );
    expect(describeFailure("The diff", "weird")).toBe(
      "The diff could not be read (unknown error); the run went on without it.",
    );
  });
});

describe("describeFailure: a rate limit", () => {
  it("says it was the rate limit and when to retry, not a missing permission", () => {
    const limited = new GitHubError("Reading x", {
      kind: "rate-limited",
      status: 403,
      githubMessage: "API rate limit exceeded",
      retryAfterSeconds: 30,
    });
    expect(describeFailure("The check runs", limited)).toBe(
      "The check runs could not be read: GitHub's rate limit was hit (retry in 30 s); the run went on without it.",
    );
  });
});
