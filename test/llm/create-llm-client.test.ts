import http from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { pino } from "pino";
import { createLlmClient, type LlmClientOptions } from "../../src/llm/create-llm-client.js";
import { LlmError } from "../../src/llm/llm-error.js";
import { startScriptedLlmServer, type ScriptedLlmServer } from "../../testkit/scripted-llm-server.js";
import { waitUntil } from "../helpers/wait-until.js";
import { createSecretRedactor } from "../../src/security/redact-secrets.js";

const KEY = "sk-test-secret-key-0123456789";

describe("createLlmClient over a scripted OpenAI-compatible server", () => {
  let server: ScriptedLlmServer;
  let sleeps: number[];
  const client = (extra: Partial<LlmClientOptions> = {}) =>
    createLlmClient({
      baseUrl: server.baseUrl,
      apiKey: KEY,
      redact: createSecretRedactor().redact,
      sleep: async (ms) => void sleeps.push(ms),
      random: () => 0,
      baseDelayMs: 100,
      ...extra,
    });
  const ask = (c = client(), model = "gpt-4o") => c.complete({ model, messages: [{ role: "user", content: "hi" }] });
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error("expected a failure");
      },
      (e: unknown) => e as LlmError,
    );

  beforeEach(async () => {
    server = await startScriptedLlmServer();
    sleeps = [];
  });
  afterEach(() => server.close());

  it("streams deltas, reports the endpoint's usage and the cost, and sends the key only as a bearer header", async () => {
    const answer = "Hello there, this is a fairly long streamed answer that the server splits into several chunks.";
    server.push({ text: answer, usage: { prompt_tokens: 1000, completion_tokens: 200 } });
    const deltas: string[] = [];
    const r = await client().complete({
      model: "gpt-4o",
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "hi" },
      ],
      temperature: 0.2,
      maxTokens: 50,
      onDelta: (d) => deltas.push(d),
    });
    expect(r).toEqual({
      text: answer,
      finishReason: "stop",
      usage: { prompt: 1000, completion: 200 },
      usageEstimated: false,
      costUsd: (1000 * 2.5 + 200 * 10) / 1e6,
      model: "gpt-4o",
    });
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe(answer);
    const sent = server.requests[0]!;
    expect(sent.body).toMatchObject({
      model: "gpt-4o",
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.2,
      max_tokens: 50,
    });
    expect(sent.body.messages).toEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "hi" },
    ]);
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it.each([true, false])(
    "estimates usage with the tokenizer when the endpoint sends none (stream: %s)",
    async (stream) => {
      server.push({ text: "four words right here", usage: null });
      const r = await ask(client({ stream }), "local-llama");
      expect(server.requests[0]!.body.stream).toBe(stream);
      expect(r.text).toBe("four words right here");
      expect(r.usageEstimated).toBe(true);
      expect(r.usage.completion).toBe(4);
      // "hi" plus per-message and priming overhead.
      expect(r.usage.prompt).toBeGreaterThan(1);
      expect(r.costUsd).toBeNull();
    },
  );

  it("sends the run's prompt_cache_key and bills the cached tokens the endpoint reports (OpenAI's rule)", async () => {
    const big = "x".repeat(6_000 * 4); // about 6,000 tokens
    const request = (extra: string, cache?: boolean) =>
      client({ stream: false }).complete({
        model: "gpt-4o",
        messages: [
          { role: "system", content: big },
          { role: "user", content: extra },
        ],
        cacheKey: "run-1",
        ...(cache === false ? { cache: false } : {}),
      });
    server.push("one", "two", "three");
    const first = await request("first question");
    const second = await request("second question, longer");
    expect(server.requests[0]!.body.prompt_cache_key).toBe("run-1");
    expect(first.usage.cacheRead).toBeUndefined(); // nothing cached yet
    const read = second.usage.cacheRead!;
    expect(read).toBeGreaterThanOrEqual(5_800);
    expect((read - 1024) % 128).toBe(0); // in 128-token steps past the first 1,024
    expect(second.costUsd).toBeCloseTo(((second.usage.prompt - read) * 2.5 + read * 1.25 + 1 * 10) / 1e6, 8);
    const off = await request("third", false);
    expect(server.requests[2]!.body).not.toHaveProperty("prompt_cache_key");
    expect(off.usage.cacheRead).toBeUndefined(); // a request without the key is another cache
  });

  it("prices models from the default table, a user table, and behind a provider prefix", async () => {
    server.push(
      { text: "a", usage: { prompt_tokens: 1_000_000, completion_tokens: 0 } },
      { text: "b", usage: { prompt_tokens: 1_000_000, completion_tokens: 1_000_000 } },
    );
    expect((await ask(client(), "openrouter/openai/gpt-4o-mini")).costUsd).toBeCloseTo(0.15);
    const custom = client({ priceTable: { "my-model": { input: 1, output: 2 } } });
    expect((await ask(custom, "my-model")).costUsd).toBeCloseTo(3);
  });

  it("waits as long as retry-after asks on 429, then succeeds", async () => {
    server.push({ status: 429, headers: { "retry-after": "2" } }, "ok");
    expect((await ask()).text).toBe("ok");
    expect(sleeps).toEqual([2000]);
    expect(server.requests).toHaveLength(2);
  });

  it("prefers retry-after-ms, and waits for an ask within its bound", async () => {
    server.push(
      { status: 503, headers: { "retry-after-ms": "1500" } },
      { status: 429, headers: { "retry-after": "5" } },
      "ok",
    );
    expect((await ask(client({ maxRetryAfterMs: 5000 }))).text).toBe("ok");
    expect(sleeps).toEqual([1500, 5000]);
  });

  it("does not wait for a retry-after past its bound: the call fails at once, saying what was asked", async () => {
    server.push({ status: 429, headers: { "retry-after": "3600" } });
    const err = await failure(ask(client({ maxRetryAfterMs: 30_000 })));
    expect(err).toMatchObject({ kind: "rate-limited", status: 429, retryable: true });
    expect(err.message).toMatch(/asked to wait 3600 s, longer than the 30 s a run waits/);
    expect(sleeps).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it("backs off exponentially on 500/502, then succeeds", async () => {
    server.push({ status: 500 }, { status: 502 }, "fine");
    expect((await ask()).text).toBe("fine");
    // random() = 0 leaves the fixed half of 100 ms, 200 ms.
    expect(sleeps).toEqual([50, 100]);
    expect(server.requests).toHaveLength(3);
  });

  it("gives up on 429 after its retries with a rate-limited error saying how often it tried", async () => {
    server.push({ status: 429 }, { status: 429 }, { status: 429 });
    const err = await failure(ask(client({ maxRetries: 2 })));
    expect(err).toBeInstanceOf(LlmError);
    expect(err).toMatchObject({ kind: "rate-limited", status: 429 });
    expect(err.message).toMatch(/gave up after 3 attempts/);
    expect(server.requests).toHaveLength(3);
  });

  it("logs each retry to a pino logger, without the key", async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
    server.push({ status: 503 }, "ok");
    await ask(client({ logger: pino({ level: "warn" }, sink) }));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      kind: "server",
      status: 503,
      attempt: 1,
      delayMs: 50,
      msg: "model request failed; retrying",
    });
    expect(lines[0]).not.toContain(KEY);
  });

  it("does not retry a 501 (not an overload)", async () => {
    server.push({ status: 501 });
    expect(await failure(ask())).toMatchObject({ kind: "server", status: 501, retryable: false });
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    [401, "auth", /rejected the API key.*check OPENAI_API_KEY/],
    [403, "auth", /rejected the API key/],
    [404, "model-not-found", /Model "gpt-4o" was not found at 127\.0\.0\.1:\d+.*check the model name/],
  ])("HTTP %d becomes a typed %s error, is not retried, and never shows the key", async (status, kind, message) => {
    server.push({ status, body: { error: { message: `Incorrect API key provided: ${KEY}` } } });
    const err = await failure(ask());
    expect(err).toBeInstanceOf(LlmError);
    expect(err).toMatchObject({ kind, status, retryable: false });
    expect(err.message).toMatch(message);
    expect(err.message).not.toContain(KEY);
    expect(server.requests).toHaveLength(1);
  });

  it("keeps the key out of messages that quote the endpoint's error text", async () => {
    server.push({ status: 422, body: { error: { message: `bad field; your key ${KEY} is fine` } } });
    const err = await failure(ask());
    expect(err.kind).toBe("bad-request");
    expect(err.message).toContain("bad field");
    expect(err.message).not.toContain(KEY);
  });

  it.each([
    { message: "This model's maximum context length is 8192 tokens", code: "context_length_exceeded" },
    { message: "prompt is too long: 210000 tokens > 200000 maximum" },
  ])("recognises a context-length error: %j", async (error) => {
    server.push({ status: 400, body: { error } });
    const err = await failure(ask());
    expect(err).toMatchObject({ kind: "context-too-long", status: 400 });
    expect(err.message).toMatch(/context window — name fewer files, or lower map_tokens/);
  });

  it("gives up on a hanging endpoint with a timeout error after its retries", async () => {
    server.push({ hangMs: 600 }, { hangMs: 600 });
    const err = await failure(ask(client({ timeoutMs: 150, maxRetries: 1 })));
    expect(err).toMatchObject({ kind: "timeout", retryable: true });
    expect(err.message).toMatch(/did not answer in time.*gave up after 2 attempts/);
    expect(server.requests).toHaveLength(2);
    expect(sleeps).toHaveLength(1);
  });

  it("retries a refused connection and reports a network error", async () => {
    const closed = await startScriptedLlmServer();
    const baseUrl = closed.baseUrl;
    await closed.close();
    const err = await failure(ask(client({ baseUrl, maxRetries: 2 })));
    expect(err).toMatchObject({ kind: "network", retryable: true });
    expect(err.message).toMatch(/Could not reach the model endpoint at 127\.0\.0\.1/);
    expect(sleeps).toHaveLength(2);
  });

  it("stops at once when the caller aborts, without retrying", async () => {
    server.push({ hangMs: 600 });
    const controller = new AbortController();
    const pending = client().complete({
      model: "gpt-4o",
      messages: [{ role: "user", content: "hi" }],
      signal: controller.signal,
    });
    // Aborted once the request is at the server (which holds its answer for 600 ms).
    await waitUntil(() => server.requests.length > 0, "the request to reach the server");
    controller.abort();
    expect(await failure(pending)).toMatchObject({ kind: "aborted" });
    expect(sleeps).toHaveLength(0);
  });

  it("continues an answer cut off at the output limit when prefill is allowed, summing usage", async () => {
    server.push(
      { text: "first half ", finishReason: "length", usage: { prompt_tokens: 10, completion_tokens: 5 } },
      { text: "second half", finishReason: "stop", usage: { prompt_tokens: 15, completion_tokens: 4 } },
    );
    const r = await ask(client({ allowPrefill: true }));
    expect(r).toMatchObject({
      text: "first half second half",
      finishReason: "stop",
      usage: { prompt: 25, completion: 9 },
    });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.body.messages).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "first half " },
    ]);
  });

  it("lets a request allow prefill, and bounds the continuations", async () => {
    server.push(...Array.from({ length: 5 }, (_, i) => ({ text: `p${i} `, finishReason: "length" as const })));
    const r = await client({ maxContinuations: 2 }).complete({
      model: "gpt-4o",
      messages: [{ role: "user", content: "hi" }],
      allowPrefill: true,
    });
    expect(r).toMatchObject({ text: "p0 p1 p2 ", finishReason: "length" });
    expect(server.requests).toHaveLength(3);
  });

  it("reports length when prefill is not allowed", async () => {
    server.push({ text: "cut", finishReason: "length" });
    const r = await ask();
    expect(r).toMatchObject({ text: "cut", finishReason: "length" });
    expect(server.requests).toHaveLength(1);
  });

  it("strips reasoning sections from the returned text but streams them as they come", async () => {
    server.push("<think>I should greet.</think>\nHere is the answer.");
    const deltas: string[] = [];
    const r = await client().complete({
      model: "gpt-4o",
      messages: [{ role: "user", content: "hi" }],
      onDelta: (d) => deltas.push(d),
    });
    expect(r.text).toBe("Here is the answer.");
    expect(deltas.join("")).toContain("<think>");
  });
});

describe("createLlmClient against a stream that stalls", () => {
  let server: http.Server;
  let baseUrl: string;
  let calls = 0;
  const chunk = (obj: unknown) => `data: ${JSON.stringify(obj)}\n\n`;
  const delta = (content: string, finish: string | null = null) => ({
    id: "x",
    object: "chat.completion.chunk",
    created: 0,
    model: "m",
    choices: [{ index: 0, delta: { content }, finish_reason: finish }],
  });

  beforeEach(async () => {
    calls = 0;
    // The first answer sends headers and one chunk, then goes silent; the second is whole.
    server = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        calls++;
        res.writeHead(200, { "content-type": "text/event-stream" });
        if (calls === 1) return void res.write(chunk(delta("partial ")));
        res.write(chunk(delta("complete answer", "stop")));
        res.end("data: [DONE]\n\n");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("times the stall out and retries instead of returning the partial text", async () => {
    const sleeps: number[] = [];
    const llm = createLlmClient({
      baseUrl,
      apiKey: KEY,
      redact: createSecretRedactor().redact,
      timeoutMs: 150,
      sleep: async (ms) => void sleeps.push(ms),
    });
    const r = await llm.complete({ model: "m", messages: [{ role: "user", content: "hi" }] });
    expect(r.text).toBe("complete answer");
    expect(calls).toBe(2);
    expect(sleeps).toHaveLength(1);
  });
});

describe("createLlmClient redaction", () => {
  it("sends no registered secret or secret-shaped text to the model", async () => {
    const server = await startScriptedLlmServer();
    try {
      server.push({ text: "ok" });
      const redactor = createSecretRedactor(["the-webhook-secret-for-llm-test"]);
      const c = createLlmClient({
        baseUrl: server.baseUrl,
        apiKey: KEY,
        redact: redactor.redact,
        sleep: async () => undefined,
      });
      const aws = "AKIA" + "ABCDEFGHIJKLMNOP";
      await c.complete({
        model: "gpt-4o",
        messages: [{ role: "user", content: `env: the-webhook-secret-for-llm-test ${aws}` }],
      });
      const sent = JSON.stringify(server.requests);
      expect(sent).toContain("env: [REDACTED] [REDACTED]");
      expect(sent).not.toContain("the-webhook-secret-for-llm-test");
      expect(sent).not.toContain(aws);
    } finally {
      await server.close();
    }
  });
});
