import { createHash } from "node:crypto";
import http from "node:http";
import { listenOnLoopback, modelRules } from "./fake-model-server.js";
import { bedrockFail, eventStreamFrame, signatureProblem, type AwsKeys } from "./fake-bedrock-wire.js";
import { createBreakpointCache, tokensOf, type BreakpointUsage, type CacheBlock } from "./prompt-cache-rules.js";
import { isCommitMessageRequest, takeReply, type PlainReply, type ScriptedReply } from "./scripted-llm-server.js";

/** Which wire protocol a request came in on. */
export type ClaudeProtocol = "anthropic" | "bedrock" | "vertex";

export interface ClaudeRequest {
  protocol: ClaudeProtocol;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The Messages API body (for Bedrock and Vertex with the model taken from the path). */
  body: { model: string; system?: unknown; messages: { role: string; content: unknown }[]; [key: string]: unknown };
  /** What the fake reported for it (absent for an error reply). */
  usage?: BreakpointUsage & { output: number };
}

export interface FakeClaudeOptions {
  /** Anthropic's API: the `x-api-key` required (default: any key). */
  apiKey?: string;
  /** Bedrock: the AWS keys and region its SigV4 signatures are checked against. */
  aws?: AwsKeys;
  /** Vertex: the bearer token required (the one the fake metadata server issues). */
  vertexToken?: string;
  /** Shortest cacheable prefix (default 1,024 tokens). */
  minCacheTokens?: number;
}

export interface FakeClaudeServer {
  /** The server's root, e.g. http://127.0.0.1:1234: ANTHROPIC_BASE_URL and ANTHROPIC_BEDROCK_BASE_URL; Vertex: `${url}/v1`. */
  url: string;
  requests: ClaudeRequest[];
  push(...replies: ScriptedReply[]): void;
  /** Answers for one model only (as the request names it), before the shared list; `null` clears them. */
  forModel(model: string, rule: { replies?: PlainReply[]; standing?: PlainReply } | null): void;
  remaining(): number;
  close(): Promise<void>;
}

const BEDROCK = /^\/model\/([^/]+)\/(invoke-with-response-stream|invoke)$/;
const VERTEX =
  /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/anthropic\/models\/([^/:]+):(streamRawPredict|rawPredict)$/;

/**
 * A wire-level fake of Claude's three front doors on 127.0.0.1, answering from a script like the scripted OpenAI
 * server (the same {@link ScriptedReply}s and commit-subject handling):
 * - Anthropic's Messages API: `POST /v1/messages`, the key (`x-api-key` or bearer) and `anthropic-version` checked,
 *   SSE events;
 * - Bedrock's runtime: `POST /model/{id}/invoke-with-response-stream` (AWS event-stream frames of the same events) and
 *   `/invoke`, each request's SigV4 signature checked with `@smithy/signature-v4`;
 * - Vertex AI: `POST /v1/projects/{p}/locations/{r}/publishers/anthropic/models/{m}:streamRawPredict`, the bearer
 *   token checked.
 * Usage reports cache reads and writes by Anthropic's documented rule (see prompt-cache-rules), so a request layout
 * that breaks the cached prefix shows up as misses. Error replies use each protocol's error shape (Anthropic's
 * `overloaded_error` for 529, Bedrock's `ThrottlingException` for 429).
 */
export async function startFakeClaudeServer(
  replies: ScriptedReply[] = [],
  o: FakeClaudeOptions = {},
): Promise<FakeClaudeServer> {
  const queue = [...replies];
  const requests: ClaudeRequest[] = [];
  const rules = modelRules<PlainReply>();
  const cache = createBreakpointCache({ ...(o.minCacheTokens !== undefined ? { minTokens: o.minCacheTokens } : {}) });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      handle(req, Buffer.concat(chunks), res).catch((error: unknown) => {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ type: "error", error: { type: "api_error", message: String(error) } }));
      });
    });
  });

  async function handle(req: http.IncomingMessage, raw: Buffer, res: http.ServerResponse): Promise<void> {
    const routed = await route(req, raw, res, o);
    if (!routed) return;
    const { protocol, stream, model, parsed, url } = routed;
    const body = { ...(parsed ?? { messages: [] }), model } as ClaudeRequest["body"];
    const record: ClaudeRequest = { protocol, path: url.pathname, headers: req.headers, body };
    requests.push(record);
    const taken = rules.next(model) ?? takeReply(queue, isCommit(body));
    const reply = taken === "no-subject" ? "" : taken;
    if (reply === undefined) return fail(res, 500, "api_error", "fake Claude server: no reply left in the script");
    // Reply functions read an OpenAI-shaped request: only the scripted OpenAI-compatible server takes them.
    if (typeof reply === "function")
      return fail(res, 500, "api_error", "fake Claude server: reply functions are not supported");
    if (typeof reply === "object" && "after" in reply)
      return fail(res, 500, "api_error", "fake Claude server: waiting replies are not supported");
    if (typeof reply === "object" && "hangMs" in reply) {
      const hang = setTimeout(() => res.destroy(), reply.hangMs);
      res.once("close", () => clearTimeout(hang));
      return;
    }
    if (typeof reply === "object" && "status" in reply) return answerError(res, protocol, reply);
    const text = typeof reply === "string" ? reply : reply.text;
    const stop = typeof reply === "object" && reply.finishReason === "length" ? "max_tokens" : "end_turn";
    const usage = { ...cache.account(model, blocksOf(body)), output: tokensOf(text) };
    record.usage = usage;
    answerMessage(
      res,
      protocol,
      stream,
      messageEvents(model, text, stop, usage),
      wholeMessage(model, text, stop, usage),
    );
  }

  const { port, close } = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    push: (...more) => queue.push(...more),
    forModel: rules.forModel,
    remaining: () => queue.length,
    close,
  };
}

/** A scripted error in the protocol's own shape (Bedrock's exceptions; Anthropic's error object elsewhere). */
function answerError(
  res: http.ServerResponse,
  protocol: ClaudeRequest["protocol"],
  reply: { status: number; body?: unknown; headers?: Record<string, string> },
): void {
  if (protocol === "bedrock" && reply.body === undefined) {
    const type = reply.status === 429 ? "ThrottlingException" : "ServiceUnavailableException";
    return bedrockFail(res, reply.status, type, "Too many requests, please wait before trying again.", reply.headers);
  }
  const type = reply.status === 529 ? "overloaded_error" : reply.status === 429 ? "rate_limit_error" : "api_error";
  res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
  res.end(JSON.stringify(reply.body ?? { type: "error", error: { type, message: `scripted error ${reply.status}` } }));
}

/** A message: whole JSON, Bedrock's event-stream frames, or server-sent events. */
function answerMessage(
  res: http.ServerResponse,
  protocol: ClaudeRequest["protocol"],
  stream: boolean,
  events: ReturnType<typeof messageEvents>,
  whole: unknown,
): void {
  if (!stream) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(whole));
  } else if (protocol === "bedrock") {
    res.writeHead(200, { "content-type": "application/vnd.amazon.eventstream" });
    for (const event of events) res.write(eventStreamFrame(event));
    res.end();
  } else {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    for (const event of events) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    res.end();
  }
}

/** The protocol, model and body of a request whose credentials check out; null once it was answered with an error. */
async function route(
  req: http.IncomingMessage,
  raw: Buffer,
  res: http.ServerResponse,
  o: FakeClaudeOptions,
): Promise<{
  protocol: ClaudeProtocol;
  stream: boolean;
  model: string;
  parsed: ClaudeRequest["body"] | null;
  url: URL;
} | null> {
  const url = new URL(req.url ?? "/", "http://fake");
  const parsed = raw.length ? (JSON.parse(raw.toString("utf8")) as ClaudeRequest["body"]) : null;
  let protocol: ClaudeProtocol;
  let stream: boolean;
  let model: string;
  const bedrock = BEDROCK.exec(url.pathname);
  const vertex = VERTEX.exec(url.pathname);
  if (req.method === "POST" && url.pathname === "/v1/messages") {
    protocol = "anthropic";
    // The SDK sends the key as `x-api-key` or, in its newer versions, as a bearer token.
    if (o.apiKey && req.headers["x-api-key"] !== o.apiKey && req.headers.authorization !== `Bearer ${o.apiKey}`) {
      fail(res, 401, "authentication_error", "invalid x-api-key");
      return null;
    }
    if (!req.headers["anthropic-version"]) {
      fail(res, 400, "invalid_request_error", "anthropic-version missing");
      return null;
    }
    model = String(parsed?.model ?? "");
    stream = parsed?.stream === true;
  } else if (req.method === "POST" && bedrock) {
    protocol = "bedrock";
    const problem = o.aws ? await signatureProblem(req, url, raw, o.aws) : null;
    if (problem) {
      bedrockFail(res, 403, "AccessDeniedException", problem);
      return null;
    }
    model = decodeURIComponent(bedrock[1]!);
    stream = bedrock[2] === "invoke-with-response-stream";
    // Bedrock takes the API version in the body, and the model only from the path.
    if (typeof parsed?.anthropic_version !== "string" || "model" in (parsed ?? {})) {
      bedrockFail(res, 400, "ValidationException", "anthropic_version is required; model must not be in the body");
      return null;
    }
  } else if (req.method === "POST" && vertex) {
    protocol = "vertex";
    if (o.vertexToken && req.headers.authorization !== `Bearer ${o.vertexToken}`) {
      fail(res, 401, "authentication_error", "Request had invalid authentication credentials.");
      return null;
    }
    model = decodeURIComponent(vertex[3]!);
    stream = vertex[4] === "streamRawPredict";
    if (typeof parsed?.anthropic_version !== "string" || "model" in (parsed ?? {})) {
      fail(res, 400, "invalid_request_error", "anthropic_version is required; model must not be in the body");
      return null;
    }
  } else {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: `no route ${url.pathname}` } }));
    return null;
  }
  return { protocol, stream, model, parsed, url };
}

/** The commit-subject request of the weak model (its system prompt asks for commit messages), as on the OpenAI fake. */
function isCommit(body: ClaudeRequest["body"]): boolean {
  const system = Array.isArray(body.system)
    ? (body.system as { text?: string }[]).map((b) => b.text ?? "").join("\n")
    : typeof body.system === "string"
      ? body.system
      : "";
  return isCommitMessageRequest({ messages: [{ role: "system", content: system }] });
}

/** The request's blocks in order, each keyed by its content (its `cache_control` left out) and role. */
export function blocksOf(body: { system?: unknown; messages: { role: string; content: unknown }[] }): CacheBlock[] {
  const blocks: CacheBlock[] = [];
  const add = (role: string, block: unknown) => {
    const { cache_control: mark, ...rest } = (typeof block === "string" ? { type: "text", text: block } : block) as {
      cache_control?: unknown;
      [k: string]: unknown;
    };
    const key = `${role}:${JSON.stringify(rest)}`;
    blocks.push({ key, tokens: tokensOf(JSON.stringify(rest)), breakpoint: mark !== undefined });
  };
  const system = body.system;
  if (Array.isArray(system)) for (const b of system) add("system", b);
  else if (typeof system === "string") add("system", system);
  for (const m of body.messages) {
    if (Array.isArray(m.content)) for (const b of m.content) add(m.role, b);
    else add(m.role, m.content);
  }
  return blocks;
}

type Usage = BreakpointUsage & { output: number };

function wireUsage(u: Usage) {
  return {
    input_tokens: u.input,
    cache_creation_input_tokens: u.write,
    cache_read_input_tokens: u.read,
    output_tokens: u.output,
  };
}

/** The Messages API's stream: start (with the input usage), one text block in 40-character deltas, stop reason, end. */
function messageEvents(model: string, text: string, stop: string, usage: Usage): Record<string, unknown>[] {
  const id = `msg_${createHash("sha256").update(text).digest("hex").slice(0, 16)}`;
  const events: Record<string, unknown>[] = [
    {
      type: "message_start",
      message: {
        id,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...wireUsage(usage), output_tokens: 1 },
      },
    },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  ];
  for (const piece of text.match(/[\s\S]{1,40}/g) ?? [])
    events.push({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: piece } });
  events.push(
    { type: "content_block_stop", index: 0 },
    {
      type: "message_delta",
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: usage.output },
    },
    { type: "message_stop" },
  );
  return events;
}

function wholeMessage(model: string, text: string, stop: string, usage: Usage) {
  return {
    id: "msg_whole",
    type: "message",
    role: "assistant",
    model,
    content: [{ type: "text", text }],
    stop_reason: stop,
    stop_sequence: null,
    usage: wireUsage(usage),
  };
}

function fail(res: http.ServerResponse, status: number, type: string, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ type: "error", error: { type, message } }));
}
