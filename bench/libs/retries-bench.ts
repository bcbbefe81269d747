/**
 * Retries of a model call: ours (src/llm/with-retries.ts, the SDK's own switched off) against the OpenAI SDK's
 * `maxRetries`, on the same scripted failures from the scripted OpenAI-compatible server. What a user sees matters
 * here, not microseconds: per scenario, the outcome, the attempts the endpoint saw, and the time to that outcome.
 * Both get 4 retries; ours waits at most `maxRetryAfterMs` (2 s here, 30 s in the app) for a `retry-after`.
 */
import OpenAI from "openai";
import { startScriptedLlmServer, type PlainReply } from "../../testkit/scripted-llm-server.js";
import { createLlmClient } from "../../src/llm/create-llm-client.js";
import { fixed, msSince } from "./bench-stats.js";
import { createSecretRedactor } from "../../src/security/redact-secrets.js";

const OK = "Done.";
const SCENARIOS: [string, PlainReply[]][] = [
  [
    "429, retry-after-ms 300, twice",
    [rateLimited({ "retry-after-ms": "300" }), rateLimited({ "retry-after-ms": "300" }), OK],
  ],
  ["503 without a header, twice", [{ status: 503 }, { status: 503 }, OK]],
  ["429, retry-after 5 s (over our cap)", [rateLimited({ "retry-after": "5" }), OK]],
  ["409 conflict, once", [{ status: 409 }, OK]],
  ["501 not implemented, once", [{ status: 501 }, OK]],
  ["400 bad request", [{ status: 400 }, OK]],
];

function rateLimited(headers: Record<string, string>): PlainReply {
  return { status: 429, headers, body: { error: { message: "Rate limit reached", type: "requests" } } };
}

type Outcome = { result: string; attempts: number; ms: number };

async function measure(replies: PlainReply[], call: (baseUrl: string) => Promise<unknown>): Promise<Outcome> {
  const server = await startScriptedLlmServer(replies);
  const start = process.hrtime.bigint();
  let result = "answered";
  try {
    await call(server.baseUrl);
  } catch (error) {
    result = `failed: ${error instanceof Error ? error.message.slice(0, 70) : String(error)}`;
  }
  const ms = msSince(start);
  const attempts = server.requests.length;
  await server.close();
  return { result, attempts, ms };
}

export async function runRetriesBench(): Promise<void> {
  const messages = [{ role: "user" as const, content: "Say done." }];
  console.log("\n== model-call retries: ours vs the OpenAI SDK's maxRetries (4 retries each)");
  for (const [name, replies] of SCENARIOS) {
    const ours = await measure(replies, (baseUrl) =>
      createLlmClient({
        baseUrl,
        apiKey: "sk-test",
        redact: createSecretRedactor().redact,
        maxRetries: 4,
        maxRetryAfterMs: 2000,
      }).complete({
        model: "gpt-4o",
        messages,
      }),
    );
    const sdk = await measure(replies, async (baseUrl) => {
      const client = new OpenAI({ baseURL: baseUrl, apiKey: "sk-test", maxRetries: 4 });
      const stream = await client.chat.completions.create({ model: "gpt-4o", messages, stream: true });
      for await (const chunk of stream) void chunk;
    });
    console.log(`  ${name}`);
    for (const [who, o] of [
      ["ours", ours],
      ["SDK ", sdk],
    ] as const) {
      console.log(`    ${who} ${o.attempts} attempt(s) ${fixed(o.ms, 0).padStart(6)} ms  ${o.result}`);
    }
  }
}
