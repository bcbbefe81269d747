import type { Octokit } from "@octokit/core";
import { httpStatus } from "./github-api.js";
import { isJsonObject, jsonField } from "./json-field.js";

/**
 * One GitHub read as an Octokit request answered it: what a process that read ahead (the App at triage) hands to the
 * process that would have made the same request (the job), so the job does not wait for GitHub a second time.
 */
export interface RecordedRead {
  status: number;
  url: string;
  headers: Record<string, string>;
  data: unknown;
}

/** The slice of Octokit the hooks below use. */
type HookedOctokit = Pick<Octokit, "hook" | "request">;
type RequestOptions = Parameters<Octokit["request"]["endpoint"]["parse"]>[0];

/**
 * The key of a request that only reads (null for any other): a GET, or a GraphQL query (never a mutation), named by
 * its method, full URL, media type and, for GraphQL, its body. Two processes that build the same request from the
 * same code get the same key; a request the triage code did not make has no recorded answer.
 */
export function readKey(octokit: HookedOctokit, options: RequestOptions): string | null {
  const parsed = octokit.request.endpoint.parse(options);
  const accept = String(parsed.headers.accept ?? "");
  if (parsed.method === "GET") return `GET ${parsed.url} ${accept}`;
  if (parsed.method !== "POST" || !/\/graphql$/.test(parsed.url)) return null;
  const query = jsonField(parsed.body, "query");
  if (typeof query !== "string" || /^\s*mutation\b/.test(query)) return null;
  return `POST ${parsed.url} ${accept} ${JSON.stringify(parsed.body)}`;
}

/**
 * Records every read `octokit` makes (see {@link readKey}): `onRead` gets its key as the request starts, and its
 * answer once GitHub gave it: the response, a 404 (what "absent" means to the readers), or null for anything else
 * (a failure the reader must see for itself, a rate limit, an outage).
 */
export function recordReads(
  octokit: HookedOctokit,
  onRead: (key: string, answer: Promise<RecordedRead | null>) => void,
): void {
  // Registered after the plugins, so it wraps them all: what it records is what the caller got, after retries.
  octokit.hook.wrap("request", async (request, options) => {
    const key = readKey(octokit, options);
    const response = Promise.resolve(request(options));
    if (key)
      onRead(
        key,
        response.then(
          // A copy as GitHub sent it: the caller's code changes the answer it got (pagination takes a list's
          // `total_count` out of it), and a reader answered later must get what GitHub sent.
          (r) => ({ status: r.status, url: r.url, headers: stringHeaders(r.headers), data: structuredClone(r.data) }),
          (error: unknown) => {
            if (httpStatus(error) !== 404) return null;
            const answer = jsonField(error, "response");
            return {
              status: 404,
              url: String(jsonField(answer, "url") ?? ""),
              headers: stringHeaders(jsonField(answer, "headers")),
              data: jsonField(answer, "data") ?? null,
            };
          },
        ),
      );
    return response;
  });
}

/**
 * Answers `octokit`'s reads from `answer` (a read made ahead for this process), and sends every other request, and
 * every read `answer` has nothing for, to GitHub as before. A recorded 404 is thrown as Octokit throws it (an error
 * with `status`, `response` and `request`). `stop()` ends the replay: later reads (the run's end re-reading a
 * comment) must see GitHub as it is then.
 */
export function replayReads(
  octokit: HookedOctokit,
  answer: (key: string) => Promise<RecordedRead | null>,
): { stop(): void } {
  let on = true;
  // Registered after the plugins, so an answered read skips them (throttling, the request log), as a cache would.
  octokit.hook.wrap("request", async (request, options) => {
    const key = on ? readKey(octokit, options) : null;
    const read = key ? await answer(key).catch(() => null) : null;
    if (!read) return request(options);
    const response = { status: read.status, url: read.url, headers: read.headers, data: read.data };
    if (read.status < 400) return response as Awaited<ReturnType<typeof request>>;
    const message = jsonField(read.data, "message");
    throw Object.assign(new Error(typeof message === "string" ? message : `HTTP ${read.status}`), {
      name: "HttpError",
      status: read.status,
      response,
      request: octokit.request.endpoint.parse(options),
    });
  });
  return {
    stop: () => {
      on = false;
    },
  };
}

/** A recorded read as it crossed a process boundary, or null when it is not one (an answer is never trusted blindly). */
export function asRecordedRead(value: unknown): RecordedRead | null {
  if (!isJsonObject(value)) return null;
  const { status, url, headers } = value;
  if (typeof status !== "number" || typeof url !== "string" || !isJsonObject(headers)) return null;
  return { status, url, headers: stringHeaders(headers), data: value.data ?? null };
}

function stringHeaders(headers: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isJsonObject(headers)) return out;
  for (const [name, value] of Object.entries(headers))
    if (typeof value === "string" || typeof value === "number") out[name] = String(value);
  return out;
}
