import { noreplyEmail, runIdFromMessage, runTrailers } from "../../../src/run/publish/run-trailers.js";

describe("run trailers", () => {
  it("names the requester with their noreply address and the run", () => {
    expect(runTrailers("d-1", { login: "ann", id: 7 })).toEqual([
      "Co-authored-by: ann <7+ann@users.noreply.github.com>",
      "Aider-Bot-Run: d-1",
    ]);
    expect(noreplyEmail({ login: "bob" })).toBe("bob@users.noreply.github.com");
  });

  it("reads the run id back from a commit message", () => {
    expect(runIdFromMessage("feat: x\n\nbody\n\nAider-Bot-Run: abc-123\n")).toBe("abc-123");
    expect(runIdFromMessage("feat: x\n\nmentions Aider-Bot-Run: inline")).toBeNull();
  });
});
