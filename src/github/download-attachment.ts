import type { GitHubClient } from "./github-client.js";
import { callGitHub } from "./github-error.js";

/**
 * The bytes at `url` (an attachment uploaded to GitHub) through the installation's Octokit, so its auth, throttling
 * and redaction apply and the token is a header, never in the URL. `fetch` carries the request: the caller's own,
 * which decides how much is read, where redirects may lead and which host gets the token. It is not retried (a
 * refusal would read up to the cap again). Null when the answer is not bytes.
 */
export async function downloadAttachment(
  api: GitHubClient,
  args: { url: URL; accept: string; fetch: typeof fetch; signal?: AbortSignal },
): Promise<Buffer | null> {
  const { data } = await callGitHub(`Downloading the attachment ${args.url.pathname}`, () =>
    api.request({
      method: "GET",
      url: args.url.href,
      headers: { accept: args.accept },
      request: { fetch: args.fetch, retries: 0, ...(args.signal ? { signal: args.signal } : {}) },
    }),
  );
  // A URL request is untyped in Octokit: the fetch answers binary content, which Octokit hands over as an ArrayBuffer.
  const body: unknown = data;
  return body instanceof ArrayBuffer ? Buffer.from(body) : null;
}
