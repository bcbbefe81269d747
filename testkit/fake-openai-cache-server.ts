import http from "node:http";
import { listenOnLoopback, modelRules } from "./fake-model-server.js";
import { createPrefixCache, tokensOf } from "./prompt-cache-rules.js";
import { isCommitMessageRequest, takeReply, type PlainReply, type ScriptedReply } from "./scripted-llm-server.js";

export interface OpenAiCacheRequest {
  /** `azure` for `/openai/deployments/{d}/chat/completions`, else `openai`. */
  protocol: "openai" | "azure";
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The body, its `model` the Azure deployment for Azure requests. */
  body: {
    model: string;
    messages: { role: string; content: unknown }[];
    stream?: boolean;
    prompt_cache_key?: string;
    [key: string]: unknown;
  };
  usage?: { prompt: number; cached: number; completion: number };
}

export interface FakeOpenAiCacheServer {
  /** The root: AZURE_OPENAI_ENDPOINT; `${url}/v1` is an OPENAI_BASE_URL. */
  url: string;
  requests: OpenAiCacheRequest[];
  push(...replies: ScriptedReply[]): void;
  forModel(model: string, rule: { replies?: PlainReply[]; standing?: PlainReply } | null): void;
  close(): Promise<void>;
}

const AZURE = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/;

/**
 * A wire-level fake of OpenAI's and Azure OpenAI's chat completions on 127.0.0.1 that answers from a script (the
 * scripted server's replies) and reports `prompt_tokens_details.cached_tokens` by their documented automatic rule
 * (longest common prefix with an earlier prompt of the same model and `prompt_cache_key`, from 1,024 tokens in
 * 128-token steps; see prompt-cache-rules). Azure requests must carry the `api-key` header (or, with `azureToken`,
 * that Entra ID token as `Authorization: Bearer`) and the `api-version` query; OpenAI ones (`/v1/chat/completions`) a bearer key when `openaiKey` is given.
 */
export async function startFakeOpenAiCacheServer(
  replies: ScriptedReply[] = [],
  o: { azureKey?: string; azureToken?: string; apiVersion?: string; openaiKey?: string } = {},
): Promise<FakeOpenAiCacheServer> {
  const queue = [...replies];
  const requests: OpenAiCacheRequest[] = [];
  const rules = modelRules<PlainReply>();
  const cache = createPrefixCache();
  const server = http.createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (raw += c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://fake");
      const azure = AZURE.exec(url.pathname);
      const fail = (status: number, message: string, code?: string) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message, ...(code ? { code } : {}) } }));
      };
      if (req.method !== "POST" || (!azure && url.pathname !== "/v1/chat/completions"))
        return fail(404, `no route ${url.pathname}`);
      if (azure) {
        // Azure takes the resource's key (`api-key`) or an Entra ID token (`Authorization: Bearer`).
        const keyOk = o.azureKey !== undefined && req.headers["api-key"] === o.azureKey;
        const tokenOk = o.azureToken !== undefined && req.headers.authorization === `Bearer ${o.azureToken}`;
        if ((o.azureKey !== undefined || o.azureToken !== undefined) && !keyOk && !tokenOk)
          return fail(401, "Access denied due to invalid subscription key or wrong API endpoint.", "401");
        const version = url.searchParams.get("api-version");
        if (!version || (o.apiVersion && version !== o.apiVersion))
          return fail(404, "Resource not found (missing or unsupported api-version).", "404");
      } else if (o.openaiKey && req.headers.authorization !== `Bearer ${o.openaiKey}`) {
        return fail(401, "Incorrect API key provided.");
      }
      const parsed = JSON.parse(raw || "{}") as OpenAiCacheRequest["body"];
      const body = { ...parsed, model: azure ? decodeURIComponent(azure[1]!) : parsed.model };
      const record: OpenAiCacheRequest = {
        protocol: azure ? "azure" : "openai",
        path: url.pathname,
        headers: req.headers,
        body,
      };
      requests.push(record);
      const taken =
        rules.next(body.model) ??
        takeReply(queue, isCommitMessageRequest(body as Parameters<typeof isCommitMessageRequest>[0]));
      const reply = taken === "no-subject" ? "" : taken;
      if (reply === undefined) return fail(500, "fake OpenAI server: no reply left in the script");
      // Reply functions are the scripted server's (testkit/scripted-llm-server.ts): this fake answers fixed replies.
      if (typeof reply === "function") return fail(500, "fake OpenAI server: reply functions are not supported");
      if (typeof reply === "object" && "after" in reply)
        return fail(500, "fake OpenAI server: waiting replies are not supported");
      if (typeof reply === "object" && "hangMs" in reply) {
        const hang = setTimeout(() => res.destroy(), reply.hangMs);
        res.once("close", () => clearTimeout(hang));
        return;
      }
      if (typeof reply === "object" && "status" in reply) {
        res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
        res.end(JSON.stringify(reply.body ?? { error: { message: `scripted error ${reply.status}` } }));
        return;
      }
      record.usage = answer(res, reply, body, cache, requests.length);
    });
  });
  const { port, close } = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    push: (...more) => queue.push(...more),
    forModel: rules.forModel,
    close,
  };
}

/** A completion (streamed when asked) whose usage reports the cached part of the prompt by OpenAI's rule. */
function answer(
  res: http.ServerResponse,
  reply: string | { text: string; finishReason?: "stop" | "length" },
  body: OpenAiCacheRequest["body"],
  cache: ReturnType<typeof createPrefixCache>,
  n: number,
): NonNullable<OpenAiCacheRequest["usage"]> {
  const text = typeof reply === "string" ? reply : reply.text;
  const finish = typeof reply === "object" && reply.finishReason ? reply.finishReason : "stop";
  const key = typeof body.prompt_cache_key === "string" ? body.prompt_cache_key : "";
  const { cached, total } = cache.account(`${body.model}\0${key}`, JSON.stringify(body.messages));
  const usage = {
    prompt_tokens: total,
    completion_tokens: tokensOf(text),
    total_tokens: total + tokensOf(text),
    prompt_tokens_details: { cached_tokens: cached },
  };
  const head = { id: `chatcmpl-${n}`, created: Math.floor(Date.now() / 1000), model: body.model };
  if (body.stream) {
    res.writeHead(200, { "content-type": "text/event-stream" });
    const send = (choices: unknown[], extra: object = {}) =>
      res.write(`data: ${JSON.stringify({ ...head, object: "chat.completion.chunk", choices, ...extra })}\n\n`);
    for (const piece of text.match(/[\s\S]{1,40}/g) ?? [""])
      send([{ index: 0, delta: { content: piece }, finish_reason: null }]);
    send([{ index: 0, delta: {}, finish_reason: finish }]);
    send([], { usage });
    res.end("data: [DONE]\n\n");
  } else {
    res.writeHead(200, { "content-type": "application/json" });
    const choices = [{ index: 0, message: { role: "assistant", content: text }, finish_reason: finish }];
    res.end(JSON.stringify({ ...head, object: "chat.completion", choices, usage }));
  }
  return { prompt: total, cached, completion: tokensOf(text) };
}
