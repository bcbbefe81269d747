import { LlmError } from "../../src/llm/llm-error.js";
import { mergeModelSettings } from "../../src/llm/model-settings.js";
import { mergePrices } from "../../src/llm/price-table.js";
import { estimateCall, routeModels } from "../../src/llm/route-models.js";
import type { SpendDecision, SpendEstimate, SpendGuard } from "../../src/llm/spend-guard.js";
import type { CompletionRequest, CompletionResult, LlmClient } from "../../src/llm/types.js";
import { waitUntil } from "../helpers/wait-until.js";

const answer = (model: string): CompletionResult => ({
  text: `from ${model}`,
  finishReason: "stop",
  usage: { prompt: 10, completion: 5 },
  usageEstimated: false,
  costUsd: 0.001,
});

/** A client whose models fail or answer as the table says, recording every call. */
function fakeClient(behaviour: Record<string, LlmError | "ok">): LlmClient & { calls: CompletionRequest[] } {
  const calls: CompletionRequest[] = [];
  return {
    calls,
    async complete(req) {
      calls.push(req);
      const b = behaviour[req.model];
      if (b instanceof LlmError) throw b;
      return answer(req.model);
    },
  };
}

function recordingGuard(decide: (e: SpendEstimate) => SpendDecision = () => ({ ok: true, id: "h" })) {
  const log: string[] = [];
  const guard: SpendGuard = {
    async reserve(e) {
      log.push(`reserve ${e.model} ${e.tokens.completion}`);
      return decide(e);
    },
    async settle(id, used) {
      log.push(`settle ${id} ${used.tokens.prompt + used.tokens.completion}`);
    },
  };
  return { guard, log };
}

const settings = mergeModelSettings();
const prices = mergePrices();
const req: CompletionRequest = { model: "gpt-4o", messages: [{ role: "user", content: "fix the bug" }] };

describe("routeModels", () => {
  it.each([
    ["rate-limited", new LlmError("rate-limited", "429", { status: 429, retryable: true })],
    ["server", new LlmError("server", "500", { status: 500, retryable: true })],
    ["timeout", new LlmError("timeout", "slow", { retryable: true })],
    ["context-too-long", new LlmError("context-too-long", "too long")],
  ])("moves to the next model on %s, and names the model that answered", async (_kind, error) => {
    const client = fakeClient({ "gpt-4o": error, "gpt-4o-mini": "ok" });
    const result = await routeModels(client, { fallbacks: ["gpt-4o-mini"], settings, prices }).complete(req);
    expect(result).toMatchObject({ text: "from gpt-4o-mini", model: "gpt-4o-mini" });
    // The first model gets one retry while a fallback waits; the last keeps the client's own retries.
    expect(client.calls.map((c) => [c.model, c.maxRetries])).toEqual([
      ["gpt-4o", 1],
      ["gpt-4o-mini", undefined],
    ]);
  });

  it("does not fall back on an auth error (another model would not fix the key)", async () => {
    const client = fakeClient({ "gpt-4o": new LlmError("auth", "bad key", { status: 401 }), "gpt-4o-mini": "ok" });
    await expect(
      routeModels(client, { fallbacks: ["gpt-4o-mini"], settings, prices }).complete(req),
    ).rejects.toMatchObject({ kind: "auth" });
    expect(client.calls).toHaveLength(1);
  });

  it("when every model fails, one error names each model's failure", async () => {
    const client = fakeClient({
      a: new LlmError("server", "a is down", { status: 500, retryable: true }),
      b: new LlmError("rate-limited", "b is busy", { status: 429, retryable: true }),
    });
    const error = (await routeModels(client, { fallbacks: ["b"], settings, prices })
      .complete({ ...req, model: "a" })
      .catch((e: unknown) => e)) as LlmError;
    expect(error.kind).toBe("rate-limited");
    expect(error.message).toBe(
      "every model failed — `a`: a is down; `b`: b is busy. Try again later, or check the endpoints and `fallback_models`.",
    );
  });

  it("reserves before each call and settles after it: the real usage on success, nothing on failure", async () => {
    const { guard, log } = recordingGuard();
    const client = fakeClient({
      "gpt-4o": new LlmError("server", "down", { status: 500, retryable: true }),
      "gpt-4o-mini": "ok",
    });
    await routeModels(client, { fallbacks: ["gpt-4o-mini"], settings, prices, guard }).complete(req);
    // Completions are capped at each model's output limit from the settings table.
    expect(log).toEqual(["reserve gpt-4o 16384", "settle h 0", "reserve gpt-4o-mini 16384", "settle h 15"]);
  });

  it("hands the answer back without waiting for its settle; the next reservation waits for it", async () => {
    const log: string[] = [];
    let release = (): void => undefined;
    const guard: SpendGuard = {
      async reserve() {
        log.push("reserve");
        return { ok: true, id: "h" };
      },
      settle() {
        log.push("settle");
        return new Promise<void>((resolve) => {
          release = () => {
            log.push("settled");
            resolve();
          };
        });
      },
    };
    const client = routeModels(fakeClient({ "gpt-4o": "ok" }), { fallbacks: [], settings, prices, guard });
    const first = client.complete(req).then(() => "answered");
    await waitUntil(
      () => log.includes("settle"),
      () => "never settled",
    );
    const turn = () => new Promise((resolve) => setImmediate(() => resolve("still waiting")));
    expect(await Promise.race([first, turn()])).toBe("answered");
    const second = client.complete(req);
    await turn();
    expect(log).toEqual(["reserve", "settle"]);
    release();
    await second;
    expect(log).toEqual(["reserve", "settle", "settled", "reserve", "settle"]);
  });

  it("a settle that fails is logged, and neither fails the answer nor the next call", async () => {
    const warned: string[] = [];
    const guard: SpendGuard = {
      reserve: async () => ({ ok: true, id: "h" }),
      settle: async () => {
        throw new Error("ledger unreachable");
      },
    };
    const client = routeModels(fakeClient({ "gpt-4o": "ok" }), {
      fallbacks: [],
      settings,
      prices,
      guard,
      logger: { warn: (_o, msg) => void warned.push(msg ?? "") },
    });
    await expect(client.complete(req)).resolves.toMatchObject({ text: "from gpt-4o" });
    await expect(client.complete(req)).resolves.toMatchObject({ text: "from gpt-4o" });
    await waitUntil(
      () => warned.length === 2,
      () => `warned ${warned.length} times`,
    );
    expect(warned).toEqual([
      "could not settle a model call's spend: its reservation stays as estimated",
      "could not settle a model call's spend: its reservation stays as estimated",
    ]);
  });

  it("a refused reservation makes no call and fails with the guard's message", async () => {
    const { guard } = recordingGuard(() => ({ ok: false, limit: "repo-day", message: "Spend limit reached: …" }));
    const client = fakeClient({ "gpt-4o": "ok" });
    await expect(routeModels(client, { fallbacks: [], settings, prices, guard }).complete(req)).rejects.toMatchObject({
      kind: "spend-limit",
      message: "Spend limit reached: …",
    });
    expect(client.calls).toHaveLength(0);
  });

  it("estimates a call as its counted prompt plus its completion cap, priced when the price is known", async () => {
    const known = await estimateCall("gpt-4o", { ...req, maxTokens: 1000 }, { settings, prices });
    expect(known.tokens.completion).toBe(1000);
    expect(known.tokens.prompt).toBeGreaterThan(3);
    expect(known.costUsd).toBeCloseTo((known.tokens.prompt * 2.5 + 1000 * 10) / 1e6, 10);
    const unknown = await estimateCall("my-local-model", req, { settings, prices });
    expect(unknown).toMatchObject({ tokens: { completion: 4096 }, costUsd: null });
  });

  it.each([
    ["bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", 3, 64_000],
    ["bedrock/anthropic.claude-3-5-haiku-20241022-v1:0", 0.8, 8_192],
    [
      "bedrock/arn:aws:bedrock:us-east-1:123456789012:inference-profile/global.anthropic.claude-sonnet-4-5-20250929-v1:0",
      3,
      64_000,
    ],
    ["vertex/claude-sonnet-4-5@20250929", 3, 64_000],
    ["vertex/claude-opus-4-1@20250805", 15, 32_000],
    ["anthropic/claude-sonnet-4-5-20250929", 3, 64_000],
  ])("estimates %s with its Claude model's output cap and prices, cache write included", async (model, input, cap) => {
    const estimate = await estimateCall(model, { ...req, model, cacheKey: "run-1" }, { settings, prices });
    expect(estimate.tokens.completion).toBe(cap);
    expect(estimate.tokens.cacheWrite).toBe(estimate.tokens.prompt);
    const expected = (estimate.tokens.prompt * input * 1.25 + cap * input * 5) / 1e6;
    expect(estimate.costUsd).toBeCloseTo(expected, 10);
  });

  it("an operator's entry under a cloud's exact id wins over the model it stands for", async () => {
    const id = "bedrock/eu.anthropic.claude-sonnet-4-5-20250929-v1:0";
    const mine = mergePrices({ [id]: { input: 1, output: 2 } });
    const estimate = await estimateCall(id, { ...req, model: id, maxTokens: 10 }, { settings, prices: mine });
    expect(estimate.costUsd).toBeCloseTo((estimate.tokens.prompt * 1 + 10 * 2) / 1e6, 10);
  });

  it("prices the run's cached prefix as cache reads, so a limit refuses before a call by what it will really cost", async () => {
    const model = "claude-sonnet-4";
    const stable = { role: "system" as const, content: "stable context line\n".repeat(2_000) };
    const round1: CompletionRequest = {
      model,
      messages: [stable, { role: "user", content: "round one" }],
      maxTokens: 100,
      cacheKey: "run-1",
    };
    const round2: CompletionRequest = {
      ...round1,
      messages: [...round1.messages, { role: "assistant", content: "answer" }, { role: "user", content: "round two" }],
    };
    // Round one writes its whole prompt to the cache: at Anthropic's write price, 1.25× input.
    const first = await estimateCall(model, round1, { settings, prices });
    expect(first.tokens.cacheWrite).toBe(first.tokens.prompt);
    expect(first.costUsd).toBeCloseTo((first.tokens.prompt * 3.75 + 100 * 15) / 1e6, 10);
    // Round two after it: the shared messages are reads.
    const cached = await estimateCall(model, round2, { settings, prices }, round1.messages);
    expect(cached.tokens.cacheRead).toBeGreaterThan(0.9 * cached.tokens.prompt);
    const uncached = await estimateCall(model, { ...round2, cache: false }, { settings, prices });
    expect(uncached.tokens.cacheRead).toBeUndefined();
    // A limit between the two: the cached call goes through, the same call without caching is refused unmade.
    const limit = (cached.costUsd! + uncached.costUsd!) / 2;
    let n = 0;
    const guard: SpendGuard = {
      reserve: async (e) =>
        n++ === 0 || e.costUsd! <= limit ? { ok: true, id: "h" } : { ok: false, limit: "run", message: "over" },
      settle: async () => undefined,
    };
    const client = fakeClient({ [model]: "ok" });
    const routed = routeModels(client, { fallbacks: [], settings, prices, guard });
    await routed.complete(round1);
    await expect(routed.complete(round2)).resolves.toMatchObject({ model });
    await expect(routed.complete({ ...round2, cache: false })).rejects.toMatchObject({ kind: "spend-limit" });
    await expect(routed.complete({ ...round2, cacheKey: "another-run" })).rejects.toMatchObject({
      kind: "spend-limit",
    });
    expect(client.calls).toHaveLength(2); // the refused calls were never made
  });
});
