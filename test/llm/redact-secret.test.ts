import { redactSecret } from "../../src/llm/redact-secret.js";

const apiKey = "sk-live-0123456789abcdef";

describe("redactSecret", () => {
  it("removes the configured key and anything shaped like a provider key", () => {
    expect(redactSecret(`key was ${apiKey}!`, apiKey)).toBe("key was ***!");
    expect(redactSecret("Incorrect API key provided: sk-proj-AbC123xyz_987")).toBe(
      "Incorrect API key provided: sk-***",
    );
  });

  it("leaves very short 'keys' (local servers) and ordinary words alone", () => {
    expect(redactSecret("the x in extra", "x")).toBe("the x in extra");
    expect(redactSecret("a sk-short word and desk-top")).toBe("a sk-short word and desk-top");
  });
});
