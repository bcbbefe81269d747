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
