import { createLlmClient } from "../../src/llm/create-llm-client.js";
import { LlmError } from "../../src/llm/llm-error.js";
import { startScriptedLlmServer, type ScriptedLlmServer } from "../helpers/scripted-llm-server.js";

describe("createLlmClient over a scripted OpenAI-compatible server", () => {
  let server: ScriptedLlmServer;
  const sleeps: number[] = [];
  const client = (extra: Record<string, unknown> = {}) =>
    createLlmClient({ baseUrl: server.baseUrl, apiKey: "sk-test-secret-key", sleep: async (ms) => void sleeps.push(ms), random: () => 0.5, baseDelayMs: 10, ...extra });
  const ask = (c = client()) => c.complete({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] });

  beforeEach(async () => {
    server = await startScriptedLlmServer();
    sleeps.length = 0;
  });
  afterEach(() => server.close());

  it("streams the answer, reports usage and cost, and sends the key as a bearer header", async () => {
    server.push({ text: "Hello there, this is a fairly long streamed answer to split into chunks.", usage: { prompt_tokens: 1000, completion_tokens: 200 } });
    const deltas: string[] = [];
    const r = await client().complete({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }], onDelta: (d) => deltas.push(d) });
    expect(r.text).toBe("Hello there, this is a fairly long streamed answer to split into chunks.");
    expect(deltas.length).toBeGreaterThan(1);
    expect(r.usage).toEqual({ prompt: 1000, completion: 200 });
    expect(r.usageEstimated).toBe(false);
    expect(r.costUsd).toBeCloseTo((1000 * 2.5 + 200 * 10) / 1e6);
    expect(server.requests[0]!.body.stream).toBe(true);
    expect(server.requests[0]!.headers.authorization).toBe("Bearer sk-test-secret-key");
  });

  it("estimates usage when the endpoint sends none; unknown models cost null", async () => {
    server.push({ text: "four words right here", usage: null });
    const r = await client().complete({ model: "local-llama", messages: [{ role: "user", content: "hello world" }] });
    expect(r.usageEstimated).toBe(true);
    expect(r.usage.completion).toBeGreaterThan(0);
    expect(r.costUsd).toBeNull();
  });

  it("waits as long as retry-after asks on 429, then succeeds", async () => {
    server.push({ status: 429, headers: { "retry-after": "2" } }, "ok");
    expect((await ask()).text).toBe("ok");
    expect(sleeps).toEqual([2000]);
  });

  it("backs off exponentially on 5xx", async () => {
    server.push({ status: 500 }, { status: 503 }, "fine");
    expect((await ask()).text).toBe("fine");
    expect(sleeps).toEqual([10, 20]);
    expect(server.requests).toHaveLength(3);
  });

  it.each([
    [401, "auth", /rejected the API key/],
    [403, "auth", /OPENAI_API_KEY/],
    [404, "model-not-found", /Model "gpt-4o" was not found/],
  ])("HTTP %d becomes a typed %s error, not retried, without the key", async (status, kind, message) => {
    server.push({ status, body: { error: { message: "Incorrect API key provided: sk-test-secret-key" } } });
    const err = (await ask().catch((e: unknown) => e)) as LlmError;
    expect(err).toBeInstanceOf(LlmError);
    expect(err.kind).toBe(kind);
    expect(err.message).toMatch(message);
    expect(err.message).not.toContain("sk-test-secret-key");
    expect(server.requests).toHaveLength(1);
  });

  it("recognises a context-length error", async () => {
    server.push({ status: 400, body: { error: { message: "This model's maximum context length is 8192 tokens", code: "context_length_exceeded" } } });
    const err = (await ask().catch((e: unknown) => e)) as LlmError;
    expect(err.kind).toBe("context-too-long");
    expect(err.message).toMatch(/map_tokens/);
  });

  it("gives up after retries on a hanging endpoint with a timeout error", async () => {
    server.push({ hangMs: 5000 }, { hangMs: 5000 });
    const err = (await ask(client({ timeoutMs: 200, maxRetries: 1 })).catch((e: unknown) => e)) as LlmError;
    expect(err.kind).toMatch(/timeout|network/);
    expect(server.requests).toHaveLength(2);
  });

  it("continues an answer cut off at the output limit when prefill is allowed", async () => {
    server.push({ text: "first half ", finishReason: "length" }, { text: "second half", finishReason: "stop" });
    const r = await ask(client({ allowPrefill: true }));
    expect(r.text).toBe("first half second half");
    expect(r.finishReason).toBe("stop");
    const second = server.requests[1]!.body.messages;
    expect(second[second.length - 1]).toEqual({ role: "assistant", content: "first half " });
  });

  it("reports length when prefill is not allowed", async () => {
    server.push({ text: "cut", finishReason: "length" });
    expect((await ask()).finishReason).toBe("length");
    expect(server.requests).toHaveLength(1);
  });

  it("strips reasoning sections", async () => {
    server.push("<think>I should edit a.py</think>\nHere is the answer.");
    expect((await ask()).text).toBe("Here is the answer.");
  });
});
