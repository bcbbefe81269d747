import { imageTokens } from "../../src/llm/image-tokens.js";
import { modelAcceptsImages } from "../../src/llm/model-vision.js";
import { toOpenAiMessage } from "../../src/llm/to-openai-message.js";

describe("modelAcceptsImages", () => {
  it.each([
    ["gpt-4o", true],
    ["gpt-4o-mini", true],
    ["openai/gpt-4.1-mini", true],
    ["gpt-5", true],
    ["o3", true],
    ["o3-mini", false],
    ["o1-mini", false],
    ["claude-3-5-sonnet-20241022", true],
    ["anthropic/claude-sonnet-4-5", true],
    ["claude-opus-4-1", true],
    ["openrouter/google/gemini-2.5-pro", true],
    ["gpt-3.5-turbo", false],
    ["gpt-4", false],
    ["deepseek-chat", false],
    ["my-local-model", false],
  ])("%s → %s", (model, ok) => {
    expect(modelAcceptsImages(model)).toBe(ok);
  });
  it("the config's override wins either way", () => {
    expect(modelAcceptsImages("my-local-model", true)).toBe(true);
    expect(modelAcceptsImages("gpt-4o", false)).toBe(false);
  });
});

describe("imageTokens", () => {
  it.each([
    [1024, 1024, 765],
    [512, 512, 255],
    [4096, 2048, 1105],
    [100, 100, 255],
  ])("%i×%i → %i (OpenAI's published tile formula)", (w, h, tokens) => {
    expect(imageTokens(w, h)).toBe(tokens);
  });
});

describe("toOpenAiMessage", () => {
  const redact = (t: string) => t.replace("sk-secret", "[redacted]");
  it("a user message with images becomes text and image_url parts, the text redacted", () => {
    expect(
      toOpenAiMessage(
        {
          role: "user",
          content: "see sk-secret",
          images: [{ dataUrl: "data:image/png;base64,AAA", width: 1, height: 1 }],
        },
        redact,
      ),
    ).toEqual({
      role: "user",
      content: [
        { type: "text", text: "see [redacted]" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAA" } },
      ],
    });
  });
  it("other messages stay plain text", () => {
    expect(toOpenAiMessage({ role: "assistant", content: "ok sk-secret" }, redact)).toEqual({
      role: "assistant",
      content: "ok [redacted]",
    });
    expect(toOpenAiMessage({ role: "user", content: "x", images: [] }, redact)).toEqual({ role: "user", content: "x" });
  });
});

describe("estimateUsage with image parts", () => {
  it("counts an image part by its size, read from the data URL", async () => {
    const { estimateUsage } = await import("../../src/llm/estimate-usage.js");
    const { makePng } = await import("../helpers/make-png.js");
    const url = `data:image/png;base64,${makePng(1024, 1024).toString("base64")}`;
    const withImage = await estimateUsage(
      [
        {
          role: "user",
          content: [
            { type: "text", text: "hi" },
            { type: "image_url", image_url: { url } },
          ],
        },
      ],
      "",
    );
    const without = await estimateUsage([{ role: "user", content: [{ type: "text", text: "hi" }] }], "");
    expect(withImage.prompt - without.prompt).toBe(765);
  });
});
