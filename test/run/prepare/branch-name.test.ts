import { issueBranchName, issueNumberFromBranch } from "../../../src/run/prepare/branch-name.js";

describe("issueBranchName", () => {
  it.each([
    ["aider/", 12, "Add retry logic!", "aider/issue-12-add-retry-logic"],
    ["aider/", 3, "  Ünïcödé   títle ", "aider/issue-3-unicode-title"],
    ["bot-", 7, "!!!", "bot-issue-7"],
    ["aider/", 9, "a".repeat(60), `aider/issue-9-${"a".repeat(40)}`],
    ["aider/", 5, "fix: the `../../etc/passwd` thing", "aider/issue-5-fix-the-etc-passwd-thing"],
  ])("%s #%d %j → %s", (prefix, n, title, expected) => {
    expect(issueBranchName(prefix, n, title)).toBe(expected);
  });

  it("parses back", () => {
    expect(issueNumberFromBranch("aider/", issueBranchName("aider/", 42, "Hello world"))).toBe(42);
    expect(issueNumberFromBranch("aider/", "feature/x")).toBeNull();
  });
});
