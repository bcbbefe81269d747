import { startFakeClaudeServer, type FakeClaudeServer } from "../../testkit/fake-claude-server.js";
import { startFakeGceMetadata, type FakeGceMetadata } from "../../testkit/fake-gce-metadata.js";
import { startFakeOpenAiCacheServer, type FakeOpenAiCacheServer } from "../../testkit/fake-openai-cache-server.js";
import { createProviderClient, type ProviderClientOptions } from "../../src/llm/create-provider-client.js";
import { LlmError } from "../../src/llm/llm-error.js";
import { providerEndpoints, type ProviderEnv } from "../../src/llm/provider-endpoints.js";
import { routeModels } from "../../src/llm/route-models.js";
import { DEFAULT_MODEL_SETTINGS } from "../../src/llm/model-settings.js";
import { DEFAULT_PRICES } from "../../src/llm/price-table.js";
import type { ChatMessage, CompletionResult } from "../../src/llm/types.js";
import { createSecretRedactor } from "../../src/security/redact-secrets.js";

const ANTHROPIC_KEY = "sk-ant-test-0123456789abcdef";
const AWS = {
  accessKeyId: "AKIAFAKEFAKEFAKE1234",
  secretAccessKey: "fake/secret+access/key0123456789abcdefgh",
  sessionToken: "fake-session-token-0123456789",
  region: "eu-west-3",
};
const AZURE_KEY = "azure-key-0123456789abcdef";
const AZURE_VERSION = "2024-10-21";
const BEDROCK_MODEL = "eu.anthropic.claude-sonnet-4-6-20250929-v1:0";

/** A stable prefix well over the 1,024-token minimum (4 characters a token), like a system prompt plus files. */
const stable = `You edit code.\n${"def f(x):\n    return x + 1\n".repeat(200)}`;

/** Three reflection rounds that only append: each round's request starts with the whole previous one. */
function rounds(): ChatMessage[][] {
  const base: ChatMessage[] = [
    { role: "system", content: stable, cacheBreakpoint: true },
    { role: "user", content: "fix the add function" },
  ];
  const r2: ChatMessage[] = [
    ...base.map((m, i) => (i === base.length - 1 ? { ...m, cacheBreakpoint: true } : m)),
    { role: "assistant", content: "edit 1" },
    { role: "user", content: "the tests fail:\n" + "E assert 1 == 2\n".repeat(40) },
  ];
  const r3: ChatMessage[] = [
    ...r2.map((m, i) => (i === r2.length - 1 ? { ...m, cacheBreakpoint: true } : m)),
    { role: "assistant", content: "edit 2" },
    { role: "user", content: "still failing" },
  ];
  return [base, r2, r3];
}

describe("native provider clients over wire-level fakes", () => {
  let claude: FakeClaudeServer;
  let openai: FakeOpenAiCacheServer;
  let metadata: FakeGceMetadata;
  let sleeps: number[];
  const saved = { host: process.env.GCE_METADATA_HOST, creds: process.env.GOOGLE_APPLICATION_CREDENTIALS };

  beforeAll(async () => {
    metadata = await startFakeGceMetadata({ token: "ya29.fake-vertex-token", projectId: "acme-ai" });
    // Google's auth library finds the metadata server through this variable, as on GCE/GKE.
    process.env.GCE_METADATA_HOST = metadata.host;
    delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
  });
  afterAll(async () => {
    await metadata.close();
    if (saved.host === undefined) delete process.env.GCE_METADATA_HOST;
    else process.env.GCE_METADATA_HOST = saved.host;
    if (saved.creds !== undefined) process.env.GOOGLE_APPLICATION_CREDENTIALS = saved.creds;
  });
  beforeEach(async () => {
    sleeps = [];
    claude = await startFakeClaudeServer([], {
      apiKey: ANTHROPIC_KEY,
      aws: AWS,
      vertexToken: metadata.token,
    });
    openai = await startFakeOpenAiCacheServer([], {
      azureKey: AZURE_KEY,
      apiVersion: AZURE_VERSION,
      openaiKey: "sk-openai-0123456789abcdef",
    });
  });
  afterEach(async () => {
    await claude.close();
    await openai.close();
  });

  const env = (extra: Partial<ProviderEnv> = {}): ProviderEnv => ({
    anthropicApiKey: ANTHROPIC_KEY,
    anthropicBaseUrl: claude.url,
    awsRegion: AWS.region,
    awsAccessKeyId: AWS.accessKeyId,
    awsSecretAccessKey: AWS.secretAccessKey,
    awsSessionToken: AWS.sessionToken,
    bedrockBaseUrl: claude.url,
    vertexRegion: "us-east5",
    vertexProjectId: "acme-ai",
    vertexBaseUrl: `${claude.url}/v1`,
    azureEndpoint: openai.url,
    azureApiKey: AZURE_KEY,
    azureApiVersion: AZURE_VERSION,
    ...extra,
  });
  const client = (extra: Partial<ProviderEnv> = {}, options: Partial<ProviderClientOptions> = {}) =>
    createProviderClient({
      endpoints: providerEndpoints(env(extra), { baseUrl: `${openai.url}/v1`, apiKey: "sk-openai-0123456789abcdef" }),
      redactor: createSecretRedactor(),
      sleep: async (ms) => void sleeps.push(ms),
      random: () => 0,
      baseDelayMs: 100,
      ...options,
    });
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error("expected a failure");
      },
      (e: unknown) => e as LlmError,
    );

  /** Three rounds on one model; each answer's usage. */
  async function threeRounds(model: string, cache = true): Promise<CompletionResult[]> {
    const c = client();
    const out: CompletionResult[] = [];
    for (const messages of rounds())
      out.push(await c.complete({ model, messages, cache, cacheKey: "run-1", maxTokens: 1000 }));
    return out;
  }

  it.each([
    ["anthropic", "anthropic/claude-sonnet-4-6", "/v1/messages"],
    ["bedrock", `bedrock/${BEDROCK_MODEL}`, `/model/${BEDROCK_MODEL}/invoke-with-response-stream`],
    [
      "vertex",
      "vertex/claude-sonnet-4-6@20250929",
      "/v1/projects/acme-ai/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-6@20250929:streamRawPredict",
    ],
  ])(
    "%s: three appended rounds stream, and rounds 2 and 3 read the stable prefix from the cache",
    async (protocol, model, path) => {
      claude.push("edit 1", "edit 2", "done");
      const deltas: string[] = [];
      const c = client();
      const results: CompletionResult[] = [];
      for (const messages of rounds())
        results.push(
          await c.complete({ model, messages, cacheKey: "run-1", maxTokens: 1000, onDelta: (d) => deltas.push(d) }),
        );
      expect(results.map((r) => r.text)).toEqual(["edit 1", "edit 2", "done"]);
      expect(deltas.join("")).toBe("edit 1edit 2done");
      expect(results.every((r) => r.finishReason === "stop" && r.model === model && !r.usageEstimated)).toBe(true);
      expect(claude.requests.map((r) => r.protocol)).toEqual([protocol, protocol, protocol]);
      expect(claude.requests[0]!.path).toBe(path);
      // The first round writes the prefix; later rounds read everything up to the previous round's end.
      const [one, two, three] = results.map((r) => r.usage);
      expect(one!.cacheRead ?? 0).toBe(0);
      expect(one!.cacheWrite).toBeGreaterThan(1024);
      expect(two!.cacheRead).toBe(one!.cacheWrite);
      expect(three!.cacheRead).toBeGreaterThan(two!.cacheRead!);
      // Our prompt counts every input token: Anthropic's input_tokens plus both cached parts.
      for (const [i, r] of claude.requests.entries()) {
        const u = r.usage!;
        expect(results[i]!.usage.prompt).toBe(u.input + u.read + u.write);
        expect(results[i]!.usage.completion).toBe(u.output);
      }
      // Breakpoints on the system block and on the last block of each marked message.
      const sent = claude.requests[2]!.body;
      expect((sent.system as { cache_control?: unknown }[])[0]!.cache_control).toEqual({ type: "ephemeral" });
      const marks = sent.messages.flatMap((m) =>
        (m.content as { cache_control?: unknown }[]).filter((b) => b.cache_control),
      );
      expect(marks).toHaveLength(2);
      if (protocol === "anthropic") {
        const h = claude.requests[0]!.headers;
        expect([h["x-api-key"], h.authorization]).toContain(h["x-api-key"] ? ANTHROPIC_KEY : `Bearer ${ANTHROPIC_KEY}`);
      }
      if (protocol === "vertex") {
        expect(metadata.tokensIssued()).toBeGreaterThan(0);
        // The project is named (ANTHROPIC_VERTEX_PROJECT_ID): the auth library does not look it up (nor run gcloud).
        expect(metadata.paths.filter((p) => p.endsWith("/project/project-id"))).toEqual([]);
      }
    },
  );

  it("cache: false sends no breakpoints, and nothing is read from the cache", async () => {
    claude.push("a", "b", "c");
    const results = await threeRounds("anthropic/claude-sonnet-4-6", false);
    expect(JSON.stringify(claude.requests.map((r) => r.body))).not.toContain("cache_control");
    expect(results.every((r) => !r.usage.cacheRead && !r.usage.cacheWrite)).toBe(true);
  });

  it("at most four breakpoints: the first (system) and the latest three", async () => {
    claude.push("ok");
    const messages: ChatMessage[] = [{ role: "system", content: stable, cacheBreakpoint: true }];
    for (let i = 0; i < 6; i++)
      messages.push(
        { role: "user", content: `round ${i}`, cacheBreakpoint: true },
        { role: "assistant", content: `answer ${i}` },
      );
    messages.push({ role: "user", content: "last" });
    await client().complete({ model: "anthropic/claude-sonnet-4-6", messages, maxTokens: 100 });
    const body = claude.requests[0]!.body;
    const marked = body.messages.flatMap((m) =>
      (m.content as { text: string; cache_control?: unknown }[]).filter((b) => b.cache_control).map((b) => b.text),
    );
    expect((body.system as { cache_control?: unknown }[])[0]!.cache_control).toBeDefined();
    expect(marked).toEqual(["round 3", "round 4", "round 5"]);
  });

  it("images become Claude image blocks; max_tokens maps to length", async () => {
    claude.push({ text: "cut", finishReason: "length" });
    const png = "iVBORw0KGgo=";
    const r = await client().complete({
      model: "anthropic/claude-sonnet-4-6",
      messages: [
        { role: "user", content: "see", images: [{ dataUrl: `data:image/png;base64,${png}`, width: 1, height: 1 }] },
      ],
    });
    expect(r.finishReason).toBe("length");
    expect(claude.requests[0]!.body.messages[0]!.content).toEqual([
      { type: "text", text: "see" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
    ]);
    // No cap given: the model's output limit from the settings table (Claude needs one).
    expect(claude.requests[0]!.body.max_tokens).toBe(DEFAULT_MODEL_SETTINGS["claude-sonnet-4-6"]?.maxOutput ?? 64_000);
  });

  it("Anthropic 529 overloaded with retry-after: waited for as asked, then answered", async () => {
    claude.push({ status: 529, headers: { "retry-after": "2" } }, "fine");
    const r = await client().complete({
      model: "anthropic/claude-sonnet-4-6",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(r.text).toBe("fine");
    expect(sleeps).toEqual([2000]);
  });

  it("Anthropic 529 past the retries: a retryable server error that names the overload", async () => {
    claude.forModel("claude-sonnet-4-6", { standing: { status: 529 } });
    const e = await failure(
      client({}, { maxRetries: 1 }).complete({
        model: "anthropic/claude-sonnet-4-6",
        messages: [{ role: "user", content: "hi" }],
      }),
    );
    expect(e.kind).toBe("server");
    expect(e.retryable).toBe(true);
    expect(e.message).toContain("overloaded_error");
  });

  it("Bedrock ThrottlingException with retry-after: rate-limited, waited for, then answered", async () => {
    claude.push({ status: 429, headers: { "retry-after": "3" } }, "ok");
    const r = await client().complete({
      model: `bedrock/${BEDROCK_MODEL}`,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(r.text).toBe("ok");
    expect(sleeps).toEqual([3000]);
    claude.forModel(BEDROCK_MODEL, { standing: { status: 429 } });
    const e = await failure(
      client({}, { maxRetries: 0 }).complete({
        model: `bedrock/${BEDROCK_MODEL}`,
        messages: [{ role: "user", content: "hi" }],
      }),
    );
    expect(e.kind).toBe("rate-limited");
    expect(e.message).toContain("ThrottlingException");
  });

  it("Bedrock checks the SigV4 signature: a wrong secret key is refused as an auth error that names the AWS credentials", async () => {
    const e = await failure(
      client({ awsSecretAccessKey: "wrong/secret+key0123456789abcdefghijklm" }).complete({
        model: `bedrock/${BEDROCK_MODEL}`,
        messages: [{ role: "user", content: "hi" }],
      }),
    );
    expect(e.kind).toBe("auth");
    expect(e.message).toContain("AWS_ACCESS_KEY_ID");
    expect(e.message).not.toContain("wrong/secret");
    expect(claude.requests).toHaveLength(0);
  });

  it("Azure: api-key header, api-version query, the deployment in the path, prompt_cache_key, cached tokens read", async () => {
    openai.push("a", "b", "c");
    const results = await threeRounds("azure/gpt-4o-prod");
    expect(openai.requests.map((r) => r.path)).toEqual(
      Array(3).fill("/openai/deployments/gpt-4o-prod/chat/completions"),
    );
    expect(openai.requests[0]!.headers["api-key"]).toBe(AZURE_KEY);
    expect(openai.requests[0]!.headers.authorization).toBeUndefined();
    expect(openai.requests.every((r) => r.body.prompt_cache_key === "run-1")).toBe(true);
    expect(results[0]!.usage.cacheRead ?? 0).toBe(0);
    expect(results[1]!.usage.cacheRead).toBe(openai.requests[1]!.usage!.cached);
    expect(results[1]!.usage.cacheRead).toBeGreaterThanOrEqual(1024);
    expect(results[2]!.usage.cacheRead).toBeGreaterThan(results[1]!.usage.cacheRead!);
  });

  it("Azure with a wrong key: an auth error naming AZURE_OPENAI_API_KEY", async () => {
    const e = await failure(
      client({ azureApiKey: "not-the-key-0123456789" }).complete({
        model: "azure/gpt-4o-prod",
        messages: [{ role: "user", content: "hi" }],
      }),
    );
    expect(e.kind).toBe("auth");
    expect(e.message).toContain("AZURE_OPENAI_API_KEY");
  });

  it("OpenAI-compatible: openai/ is dropped, prompt_cache_key sent, cached_tokens read", async () => {
    openai.push("a", "b", "c");
    const results = await threeRounds("openai/gpt-4o");
    expect(openai.requests.map((r) => [r.protocol, r.body.model, r.body.prompt_cache_key])).toEqual(
      Array(3).fill(["openai", "gpt-4o", "run-1"]),
    );
    expect(results[1]!.usage.cacheRead).toBeGreaterThanOrEqual(1024);
  });

  it("a provider whose variables are missing fails the call with what to set, before any request", async () => {
    const e = await failure(
      client({ awsRegion: undefined, bedrockBaseUrl: undefined }).complete({
        model: `bedrock/${BEDROCK_MODEL}`,
        messages: [{ role: "user", content: "hi" }],
      }),
    );
    expect(e.kind).toBe("auth");
    expect(e.message).toContain("AWS_REGION");
    const v = await failure(
      client({ vertexRegion: undefined }).complete({
        model: "vertex/claude-sonnet-4-6",
        messages: [{ role: "user", content: "hi" }],
      }),
    );
    expect(v.message).toContain("CLOUD_ML_REGION");
    expect(claude.requests).toHaveLength(0);
  });

  it("a fallback from Claude on Bedrock to an OpenAI-compatible model", async () => {
    claude.forModel(BEDROCK_MODEL, { standing: { status: 500 } });
    openai.push("from the fallback");
    const routed = routeModels(client(), {
      fallbacks: ["gpt-4o-mini"],
      settings: DEFAULT_MODEL_SETTINGS,
      prices: DEFAULT_PRICES,
    });
    const r = await routed.complete({ model: `bedrock/${BEDROCK_MODEL}`, messages: [{ role: "user", content: "hi" }] });
    expect(r.text).toBe("from the fallback");
    expect(r.model).toBe("gpt-4o-mini");
    expect(claude.requests.length).toBeGreaterThanOrEqual(1);
    expect(openai.requests.map((q) => q.body.model)).toEqual(["gpt-4o-mini"]);
  });
});
