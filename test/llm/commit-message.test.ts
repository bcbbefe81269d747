import { generateCommitMessage, validSubject } from "../../src/llm/commit-message.js";
import { createLlmClient } from "../../src/llm/create-llm-client.js";
import { startScriptedLlmServer } from "../helpers/scripted-llm-server.js";

describe("commit messages", () => {
  it.each([
    ["feat: add retry logic to the fetch client", "feat: add retry logic to the fetch client"],
    ['"fix: handle empty input."', "fix: handle empty input"],
    ["Added some stuff", null],
    ["feat: " + "x".repeat(80), null],
    ["wat: nope", null],
  ])("validSubject(%j) → %j", (text, expected) => {
    expect(validSubject(text)).toBe(expected);
  });

  it("asks the weak model with the diff and falls back to null on garbage", async () => {
    const server = await startScriptedLlmServer(["fix: correct the off-by-one in pager", "Sure! Here's a message:"]);
    try {
      const llm = createLlmClient({ baseUrl: server.baseUrl, apiKey: "k" });
      expect(await generateCommitMessage(llm, { model: "m", diff: "diff --git a/x b/x", context: "fix pager" })).toBe("fix: correct the off-by-one in pager");
      expect(server.requests[0]!.body.messages[1]!.content).toContain("diff --git a/x b/x");
      expect(await generateCommitMessage(llm, { model: "m", diff: "d", context: "" })).toBeNull();
    } finally {
      await server.close();
    }
  });
});
