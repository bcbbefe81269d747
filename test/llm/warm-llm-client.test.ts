import { warmLlmClient } from "../../src/llm/warm-llm-client.js";

describe("warmLlmClient", () => {
  it("makes one streamed completion through the client against its own endpoint, which it then closes", async () => {
    await expect(warmLlmClient()).resolves.toBe("ok");
    // Twice in a row: the first left no server or connection behind that the second would trip over.
    await expect(warmLlmClient()).resolves.toBe("ok");
  });
});
