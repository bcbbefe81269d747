import http from "node:http";
import https from "node:https";
import { GitHubError } from "../../github/github-error.js";
import type { RepoGitHub } from "../../github/repo-github.js";
import { isAllowedRedirect } from "../find-image-links.js";

export type DownloadResult = { ok: true; bytes: Buffer } | { ok: false; reason: string };

const MAX_REDIRECTS = 3;

/**
 * Download one image through the installation's Octokit (its auth, throttling and redaction apply; the token is a
 * header, never in a URL), with a `fetch` of our own for this one request: it stops reading past `maxBytes` (a
 * Content-Length over it is refused before the body), follows at most 3 redirects and only to GitHub's asset hosts
 * (see isAllowedRedirect), and sends the token to `tokenOrigin` alone — a redirect to a signed storage address goes
 * without it. Never throws.
 */
export async function downloadImage(
  github: Pick<RepoGitHub, "downloadAttachment">,
  url: URL,
  opts: { maxBytes: number; tokenOrigin: string | null; timeoutMs?: number; signal?: AbortSignal },
): Promise<DownloadResult> {
  let refused: string | null = null;
  const capped = cappedFetch(opts, (reason) => (refused = reason));
  try {
    const bytes = await github.downloadAttachment({
      url,
      accept: "image/png,image/jpeg,image/gif,image/webp,image/*;q=0.8",
      fetch: capped,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    if (!bytes) return { ok: false, reason: "the answer was not an image" };
    return { ok: true, bytes };
  } catch (error) {
    if (refused) return { ok: false, reason: refused };
    // Octokit reports a network failure as status 500: its own message says what went wrong.
    const status = error instanceof GitHubError ? error.status : undefined;
    const message = error instanceof GitHubError ? error.githubMessage : String(error);
    return {
      ok: false,
      reason:
        status && status !== 500
          ? `GitHub answered HTTP ${status}`
          : `it could not be downloaded (${message.slice(0, 120)})`,
    };
  }
}

type FetchInit = { method?: string; headers?: Record<string, string> | Headers; signal?: AbortSignal | null };

function cappedFetch(
  opts: { maxBytes: number; tokenOrigin: string | null; timeoutMs?: number },
  refuse: (reason: string) => void,
): typeof fetch {
  // `typeof fetch` also has static members (preconnect): this function is only ever called, so it stands for it.
  return (async (input: string | URL | Request, init: FetchInit = {}) => {
    let url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
    const start = url;
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => (headers[k] = v));
    for (let hop = 0; ; hop++) {
      const send = { ...headers };
      if (url.origin !== opts.tokenOrigin) delete send.authorization;
      const res = await get(url, send, opts, init.signal ?? undefined, refuse);
      const location = res.status >= 300 && res.status < 400 ? res.headers.get("location") : null;
      if (!location) {
        // Octokit decodes a text or charset answer as UTF-8, which would damage binary data: an image is bytes.
        if (res.status >= 200 && res.status < 300) res.headers.set("content-type", "application/octet-stream");
        return new Response(res.status === 204 || res.status === 304 ? null : res.body, {
          status: res.status,
          statusText: res.statusText,
          headers: res.headers,
        });
      }
      const next = new URL(location, url);
      if (hop >= MAX_REDIRECTS || !isAllowedRedirect(next, start)) {
        const reason =
          hop >= MAX_REDIRECTS
            ? "too many redirects"
            : `it redirects to ${next.host}, which is not a GitHub asset host`;
        refuse(reason);
        throw new Error(reason);
      }
      url = next;
    }
  }) as typeof fetch;
}

function get(
  url: URL,
  headers: Record<string, string>,
  opts: { maxBytes: number; timeoutMs?: number },
  signal: AbortSignal | undefined,
  refuse: (reason: string) => void,
) {
  const mb = (n: number) => `${(n / 1_048_576).toFixed(n < 10_485_760 ? 1 : 0)} MB`;
  return new Promise<{ status: number; statusText: string; headers: Headers; body: Buffer }>((resolve, reject) => {
    const client = url.protocol === "https:" ? https : http;
    const req = client.request(url, { method: "GET", headers, ...(signal ? { signal } : {}) }, (res) => {
      const out = new Headers();
      for (const [k, v] of Object.entries(res.headers))
        if (v !== undefined) out.set(k, Array.isArray(v) ? v.join(", ") : v);
      const status = res.statusCode ?? 0;
      const declared = Number(res.headers["content-length"] ?? NaN);
      const stop = (reason: string) => {
        refuse(reason);
        req.destroy();
        reject(new Error(reason));
      };
      if (status >= 200 && status < 300 && declared > opts.maxBytes)
        return stop(`it is ${mb(declared)}, over the limit of ${mb(opts.maxBytes)}`);
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > opts.maxBytes) return stop(`it is over the limit of ${mb(opts.maxBytes)}`);
        chunks.push(chunk);
      });
      res.on("error", reject);
      res.on("end", () =>
        resolve({ status, statusText: res.statusMessage ?? "", headers: out, body: Buffer.concat(chunks) }),
      );
    });
    req.setTimeout(opts.timeoutMs ?? 30_000, () => req.destroy(new Error(`no answer from ${url.host}`)));
    req.on("error", reject);
    req.end();
  });
}
