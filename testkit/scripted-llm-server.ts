import http from "node:http";
import { listenOnLoopback, modelRules } from "./fake-model-server.js";

/**
 * One scripted reply: a text answer (streamed or not, as the client asks), a raw HTTP error, a hang, or a commit
 * subject kept for the next commit-message request (see {@link commitReply}).
 */
export type ScriptedReply = FixedReply | { commitMessage: PlainReply } | ReplyFunction;

/** A reply given as it is. */
export type FixedReply =
  | string
  | {
      text: string;
      finishReason?: "stop" | "length";
      usage?: { prompt_tokens: number; completion_tokens: number } | null;
    }
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { hangMs: number }
  /** The reply once `after` settles: a model still writing while something else happens (a base run starts). */
  | { after: Promise<unknown>; reply: FixedReply };

/**
 * A reply computed from the request when it is taken: a model whose answer depends on what it was shown (the replay
 * benchmark's oracle reads the files and the fence from the request). It takes model requests, never commit-message ones.
 */
export type ReplyFunction = (request: RecordedRequest) => FixedReply;

/** A reply any request may take. */
export type PlainReply = FixedReply | ReplyFunction;

const marked = (r: ScriptedReply): r is { commitMessage: PlainReply } => typeof r === "object" && "commitMessage" in r;

/**
 * A reply only a commit-message request takes (the weak model's, told apart by the words "commit messages" in its
 * system prompt), wherever it is in the queue. The app asks for a subject while a round's checks run, so when those
 * fail that request comes before the next round's model call; see takeReply for the unmarked case.
 */
export function commitReply(reply: PlainReply): ScriptedReply {
  return { commitMessage: reply };
}

/** Whether a request is the weak model's commit-message call (see generate-commit-message's system prompt). */
export function isCommitMessageRequest(body: { messages?: readonly { role: string; content: unknown }[] }): boolean {
  const system = body.messages?.[0];
  return system?.role === "system" && typeof system.content === "string" && system.content.includes("commit messages");
}

/** A one-line Conventional Commits subject ("fix: …"), which only a commit-message request takes unmarked. */
const SUBJECT_LINE = /^[a-z]+(\([^)\n]*\))?!?: [^\n]+\n?$/;

/**
 * The reply a request takes. A commit-message request: the first reply marked with {@link commitReply}; else the
 * next reply when it is a one-line commit subject; else an empty answer (the app then writes its own subject), so a
 * subject asked for while checks ran never takes the next round's edit. Any other request: the first unmarked reply.
 */
export function takeReply(queue: ScriptedReply[], commitRequest: boolean): PlainReply | "no-subject" | undefined {
  let at: number;
  if (commitRequest) {
    at = queue.findIndex(marked);
    if (at < 0) {
      const head = queue[0];
      if (typeof head !== "string" || !SUBJECT_LINE.test(head)) return "no-subject";
      at = 0;
    }
  } else {
    at = queue.findIndex((r) => !marked(r));
  }
  if (at < 0) return undefined;
  const [reply] = queue.splice(at, 1);
  return reply && marked(reply) ? reply.commitMessage : reply;
}

export interface RecordedRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: {
    model: string;
    messages: { role: string; content: string }[];
    stream?: boolean;
    [key: string]: unknown;
  };
}

export interface ScriptedLlmServer {
  /** e.g. http://127.0.0.1:1234/v1 — use as OPENAI_BASE_URL. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Replies not consumed yet. */
  remaining(): number;
  /** Drop the replies not consumed yet (a run that ended early leaves them); returns how many there were. */
  clear(): number;
  push(...replies: ScriptedReply[]): void;
  /**
   * Answers for one model only (by the request's `model`), taken before the shared list: `replies` in order, then
   * `standing` for every later request to that model (e.g. `{ status: 500 }`: the model is down). `null` clears it.
   */
  forModel(model: string, rule: { replies?: PlainReply[]; standing?: PlainReply } | null): void;
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible `/v1/chat/completions` endpoint that answers from a list, in order (but see
 * {@link commitReply}), and records every request. Its usage reports `prompt_tokens_details.cached_tokens` by
 * OpenAI's rule for automatic prompt caching (see {@link openAiCachedTokens}).
 * When the list runs out it answers 500 with a clear message, so a test never hangs on a missing reply.
 */
export async function startScriptedLlmServer(replies: ScriptedReply[] = []): Promise<ScriptedLlmServer> {
  const queue = [...replies];
  const requests: RecordedRequest[] = [];
  const rules = modelRules<PlainReply>();
  const cache = new Map<string, string[]>();
  const server = http.createServer((req, res) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (raw += chunk));
    req.on("end", () => {
      const body = raw
        ? (JSON.parse(raw) as RecordedRequest["body"])
        : ({ model: "", messages: [] } as RecordedRequest["body"]);
      requests.push({ path: req.url ?? "", headers: req.headers, body });
      if (!req.url?.endsWith("/chat/completions")) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
        return;
      }
      const taken = rules.next(body.model) ?? takeReply(queue, isCommitMessageRequest(body));
      const picked = taken === "no-subject" ? "" : taken;
      const reply = typeof picked === "function" ? picked(requests.at(-1)!) : picked;
      if (reply === undefined) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "scripted LLM server: no reply left in the script" } }));
        return;
      }
      const request = {
        id: `chatcmpl-${requests.length}`,
        body,
        promptChars: raw.length,
        cachedChars: rememberPrompt(cache, body),
      };
      void settled(reply).then((r) => answer(res, r, request));
    });
  });
  const { port, close } = await listenOnLoopback(server);
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    remaining: () => queue.length,
    clear: () => queue.splice(0).length,
    push: (...more) => queue.push(...more),
    forModel: rules.forModel,
    close,
  };
}

type Usage = {
  prompt_tokens: number;
  completion_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
};

/**
 * The characters of this request's messages that an earlier request with the same model and `prompt_cache_key`
 * already sent (their longest common prefix): what OpenAI's automatic prompt cache can serve. Remembers the request.
 */
function rememberPrompt(cache: Map<string, string[]>, body: RecordedRequest["body"]): number {
  const key = `${body.model}\n${typeof body.prompt_cache_key === "string" ? body.prompt_cache_key : ""}`;
  const prompt = JSON.stringify(body.messages ?? []);
  const earlier = cache.get(key) ?? [];
  let best = 0;
  for (const before of earlier) best = Math.max(best, commonPrefix(before, prompt));
  cache.set(key, [...earlier, prompt]);
  return best;
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** OpenAI's documented rule: prompts of 1,024 tokens or more are cached, hits come in 1,024 + 128-token steps. */
export const CACHE_MIN_TOKENS = 1024;
export const CACHE_STEP_TOKENS = 128;

/** The `cached_tokens` OpenAI would report for a prompt of `promptTokens` sharing `prefixTokens` with an earlier one. */
export function openAiCachedTokens(promptTokens: number, prefixTokens: number): number {
  const prefix = Math.min(prefixTokens, promptTokens);
  if (promptTokens < CACHE_MIN_TOKENS || prefix < CACHE_MIN_TOKENS) return 0;
  return CACHE_MIN_TOKENS + Math.floor((prefix - CACHE_MIN_TOKENS) / CACHE_STEP_TOKENS) * CACHE_STEP_TOKENS;
}

/** The reply to give, once every `after` it waits for has settled (a failed wait answers 500, saying so). */
async function settled(reply: FixedReply): Promise<Exclude<FixedReply, { after: unknown }>> {
  while (typeof reply === "object" && "after" in reply) {
    const failed = await reply.after.then(
      () => false,
      () => true,
    );
    if (failed) return { status: 500, body: { error: { message: "scripted LLM server: a reply's wait failed" } } };
    reply = reply.reply;
  }
  return reply;
}

/** Answer a chat completion with a scripted reply: a hang, a raw HTTP error, or a completion (streamed if asked). */
function answer(
  res: http.ServerResponse,
  reply: Exclude<FixedReply, { after: unknown }>,
  request: { id: string; body: RecordedRequest["body"]; promptChars: number; cachedChars: number },
): void {
  if (typeof reply === "object" && "hangMs" in reply) {
    // A hang ends with the connection, or when the server closes: its timer must not keep the process alive
    // (a jest run waited out a 120 s hang after its last test).
    const hang = setTimeout(() => res.destroy(), reply.hangMs);
    res.once("close", () => clearTimeout(hang));
    return;
  }
  if (typeof reply === "object" && "status" in reply) {
    res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
    res.end(JSON.stringify(reply.body ?? { error: { message: `scripted error ${reply.status}` } }));
    return;
  }
  const text = typeof reply === "string" ? reply : reply.text;
  const finish = typeof reply === "string" ? "stop" : (reply.finishReason ?? "stop");
  // Tokens as 4 characters each, here and for the cached prefix, so a layout that breaks the prefix shows as misses.
  const promptTokens = Math.ceil(request.promptChars / 4);
  const cached = openAiCachedTokens(promptTokens, Math.floor(request.cachedChars / 4));
  const usage: Usage | null =
    typeof reply === "object" && reply.usage !== undefined
      ? reply.usage
      : {
          prompt_tokens: promptTokens,
          completion_tokens: Math.ceil(text.length / 4),
          ...(cached > 0 ? { prompt_tokens_details: { cached_tokens: cached } } : {}),
        };
  const completion = { id: request.id, created: Math.floor(Date.now() / 1000), model: request.body.model };
  if (request.body.stream) streamCompletion(res, completion, text, finish, usage);
  else writeCompletion(res, completion, text, finish, usage);
}

type CompletionHead = { id: string; created: number; model: string };

function withTotal(usage: Usage) {
  return { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
}

/** A completion as server-sent chunks of 40 characters, then the finish reason, then the usage (when there is one). */
function streamCompletion(
  res: http.ServerResponse,
  head: CompletionHead,
  text: string,
  finish: string,
  usage: Usage | null,
): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = (choices: unknown[], extra: object = {}) =>
    res.write(`data: ${JSON.stringify({ ...head, object: "chat.completion.chunk", choices, ...extra })}\n\n`);
  for (const piece of text.match(/[\s\S]{1,40}/g) ?? [""]) {
    send([{ index: 0, delta: { content: piece }, finish_reason: null }]);
  }
  send([{ index: 0, delta: {}, finish_reason: finish }]);
  if (usage) send([], { usage: withTotal(usage) });
  res.end("data: [DONE]\n\n");
}

function writeCompletion(
  res: http.ServerResponse,
  head: CompletionHead,
  text: string,
  finish: string,
  usage: Usage | null,
): void {
  res.writeHead(200, { "content-type": "application/json" });
  const choices = [{ index: 0, message: { role: "assistant", content: text }, finish_reason: finish }];
  res.end(
    JSON.stringify({ ...head, object: "chat.completion", choices, ...(usage ? { usage: withTotal(usage) } : {}) }),
  );
}
