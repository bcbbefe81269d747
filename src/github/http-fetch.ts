// Hand-written, kept (`npm run bench libs http`, docs/performance.md "Libraries and hand-written code"):
// through Octokit, one GitHub-sized gzip JSON answer per call, this client spent 1159 µs of CPU per call against
// 1844 µs for undici 7's fetch with its own keep-alive Agent (1.59×) and 1523 µs for Node's built-in fetch (1.31×),
// medians of 7 interleaved rounds on a shared 2-core machine. The triage path makes every webhook's GitHub calls on
// the app's one main thread, so a third to a half more CPU per call is what a webhook storm would pay: ours stays.
import http from "node:http";
import https from "node:https";
import { promisify } from "node:util";
import zlib from "node:zlib";

/** The part of `fetch`'s init that Octokit passes (`@octokit/request`'s fetch wrapper). */
export interface HttpFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  redirect?: "follow" | "manual" | "error";
  signal?: AbortSignal | null;
}

export interface HttpFetchOptions {
  /** A request whose connection is silent this long fails (undici's fetch waits 300 s for headers and for body data). */
  idleTimeoutMs?: number;
  /** Used for what this client does not carry itself: a streamed request body. */
  fallback?: typeof fetch;
}

/**
 * Load now what the first request would load on its own clock: Node's `Headers` and `Request` globals are getters
 * that load its whole fetch implementation (undici) on first use. In a new job process that was ~60 ms of CPU inside
 * the job's first GitHub call, while its clone waited to start. A spare job process calls this while it waits.
 */
export function warmHttpFetch(): void {
  new Headers();
  void Request;
}

const MAX_REDIRECTS = 20;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
const inflate: Partial<Record<string, (b: Buffer) => Promise<Buffer>>> = {
  gzip: promisify(zlib.gunzip),
  "x-gzip": promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress),
};

/**
 * `fetch` for Octokit over `node:http(s)` with keep-alive agents: the answer is read whole and handed back as a
 * standard `Response`. Node's own `fetch` (undici) costs about twice the CPU per GitHub call here, in web streams,
 * request cloning and per-request dispatch: in a webhook storm, triage spent a quarter of the app's main thread in
 * it. What Octokit relies on behaves as `fetch`'s does: redirects are followed (a cross-origin one drops the
 * `authorization` header), `gzip`/`deflate`/`br` answers are decoded, an abort rejects with an `AbortError`, a
 * network failure rejects with a `TypeError` whose `cause` is the socket's error. (The function is cast to
 * `typeof fetch`, whose static members, such as `preconnect`, nobody calls.)
 */
export function createHttpFetch(options: HttpFetchOptions = {}): typeof fetch {
  const idleTimeoutMs = options.idleTimeoutMs ?? 300_000;
  const agents = { "http:": new http.Agent({ keepAlive: true }), "https:": new https.Agent({ keepAlive: true }) };
  const fallback = options.fallback ?? globalThis.fetch;

  const once = (
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: string | Buffer | undefined,
    signal: AbortSignal | null | undefined,
  ) =>
    new Promise<{ status: number; statusText: string; headers: Headers; body: Buffer }>((resolve, reject) => {
      const client = url.protocol === "https:" ? https : http;
      const req = client.request(
        url,
        { method, headers, agent: agents[url.protocol as "http:" | "https:"], ...(signal ? { signal } : {}) },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("error", (error) => reject(failure(error, signal)));
          res.on("end", () => {
            const raw = res.rawHeaders;
            const headers = new Headers();
            for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
            const encoding = (headers.get("content-encoding") ?? "").trim().toLowerCase();
            const data = Buffer.concat(chunks);
            const decode = encoding && inflate[encoding] && data.length ? inflate[encoding] : null;
            if (decode) headers.delete("content-encoding");
            (decode ? decode(data) : Promise.resolve(data)).then(
              (decoded) =>
                resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? "", headers, body: decoded }),
              (error: unknown) => reject(new TypeError("fetch failed", { cause: error })),
            );
          });
        },
      );
      req.setTimeout(idleTimeoutMs, () =>
        req.destroy(new Error(`no answer from ${url.host} within ${idleTimeoutMs} ms`)),
      );
      req.on("error", (error) => reject(failure(error, signal)));
      req.end(body);
    });

  return (async (input: string | URL | Request, init: HttpFetchInit = {}) => {
    const body = init.body ?? undefined;
    if (input instanceof Request || (body !== undefined && typeof body !== "string" && !Buffer.isBuffer(body))) {
      return fallback(input, init as RequestInit); // our init is the part of RequestInit Octokit fills
    }
    let url = new URL(String(input));
    let method = (init.method ?? "GET").toUpperCase();
    let sent: string | Buffer | undefined = body;
    const headers: Record<string, string> = {
      "accept-encoding": "gzip, deflate, br",
      ...lowerCased(init.headers ?? {}),
    };
    for (let hops = 0; ; hops++) {
      if (url.protocol !== "http:" && url.protocol !== "https:")
        throw new TypeError("fetch failed", { cause: new Error(`unsupported protocol ${url.protocol}`) });
      init.signal?.throwIfAborted();
      const answer = await once(url, method, headers, sent, init.signal);
      const location = answer.headers.get("location");
      if (REDIRECTS.has(answer.status) && location && (init.redirect ?? "follow") !== "manual") {
        if (init.redirect === "error")
          throw new TypeError("fetch failed", { cause: new Error(`redirected to ${location}`) });
        if (hops >= MAX_REDIRECTS) throw new TypeError("fetch failed", { cause: new Error("too many redirects") });
        const next = new URL(location, url);
        // As fetch does: credentials stay with their origin, and a redirected POST (or any 303) becomes a GET.
        if (next.origin !== url.origin) delete headers.authorization;
        if (
          answer.status === 303
            ? method !== "HEAD"
            : (answer.status === 301 || answer.status === 302) && method === "POST"
        ) {
          method = "GET";
          sent = undefined;
          delete headers["content-type"];
          delete headers["content-length"];
        }
        url = next;
        continue;
      }
      if (answer.status < 200 || answer.status > 599)
        throw new TypeError("fetch failed", {
          cause: new Error(`unexpected status ${answer.status} from ${url.host}`),
        });
      const response = new Response(NULL_BODY.has(answer.status) || method === "HEAD" ? null : answer.body, {
        status: answer.status,
        statusText: answer.statusText,
        headers: answer.headers,
      });
      Object.defineProperty(response, "url", { value: url.href });
      Object.defineProperty(response, "redirected", { value: hops > 0 });
      return response;
    }
  }) as typeof fetch;
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}

/** An abort as fetch reports it (`AbortError`), anything else as fetch's `TypeError` with the socket's error as cause. */
function failure(error: unknown, signal: AbortSignal | null | undefined): Error {
  if (signal?.aborted) {
    const reason: unknown = signal.reason;
    return reason instanceof Error ? reason : new DOMException("This operation was aborted", "AbortError");
  }
  return new TypeError("fetch failed", { cause: error });
}
