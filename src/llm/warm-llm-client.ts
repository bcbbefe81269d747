import http from "node:http";
import type { AddressInfo } from "node:net";
import { createLlmClient } from "./create-llm-client.js";

/** The streamed answer the warm-up's own endpoint gives: one delta, a finish, usage, as OpenAI streams them. */
const ANSWER = [
  { choices: [{ index: 0, delta: { role: "assistant", content: "ok" }, finish_reason: null }] },
  { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
  { choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } },
]
  .map(
    (chunk) =>
      `data: ${JSON.stringify({ id: "warm", object: "chat.completion.chunk", created: 0, model: "warm-up", ...chunk })}\n\n`,
  )
  .join("");

/**
 * One streamed completion through the OpenAI-compatible client, against an endpoint of this process's own on
 * 127.0.0.1 that answers at once, then closed: the SDK's client and request code, Node's fetch with its HTTP parser and
 * web streams, and the stream's parsing run once, so V8 has compiled them before a job's first model request. A
 * job's first request paid ~50–90 ms of CPU for that first run, on the run's path (a spare job process warms ahead
 * of its job). Nothing leaves the machine; no key or request text is involved. Resolves with the answer's text.
 */
export async function warmLlmClient(): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream", connection: "close" });
      res.end(`${ANSWER}data: [DONE]\n\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  try {
    const { port } = server.address() as AddressInfo;
    const client = createLlmClient({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      apiKey: "warm-up",
      maxRetries: 0,
      timeoutMs: 10_000,
      redact: (text) => text,
    });
    const answer = await client.complete({ model: "warm-up", messages: [{ role: "user", content: "warm up" }] });
    return answer.text;
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
