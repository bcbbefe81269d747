import type http from "node:http";
import { routeRequest, type RouteContext } from "./fake-github-routes.js";
import { answerGraphql } from "./fake-graphql.js";
import { bearerToken } from "./fake-route-table.js";

/** Read a request's body whole, as text. */
async function readBody(req: http.IncomingMessage): Promise<string> {
  let raw = "";
  for await (const chunk of req) raw += chunk;
  return raw;
}

/**
 * A REST call to the fake (`/api/v3/…`): routed (fake-github-routes.ts), recorded in `state.calls`, and answered
 * with GitHub's rate-limit headers. A body that is not JSON reads as an empty one (routes answer 422 as GitHub does
 * for the fields they need); a route that throws is a 500 carrying the error.
 */
export async function handleApi(
  ctx: RouteContext,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  url: URL,
): Promise<void> {
  const { state } = ctx;
  const raw = await readBody(req);
  let body: Record<string, unknown> = {};
  try {
    body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
  } catch {
    body = {};
  }
  const segments = url.pathname.slice("/api/v3/".length).split("/").filter(Boolean);
  const method = req.method ?? "GET";
  let out;
  try {
    out = await routeRequest(ctx, {
      method,
      segments,
      query: url.searchParams,
      body,
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
  } catch (error) {
    out = { status: 500, json: { message: String(error) } };
  }
  state.calls.push({
    method,
    path: url.pathname.slice("/api/v3".length) + url.search,
    status: out.status,
    authorization: req.headers.authorization,
    body: raw ? body : undefined,
    at: Date.now(),
  });
  // Like GitHub, every answer says how much of the hour's budget is left (one per call here).
  const limit = {
    "x-ratelimit-limit": "5000",
    "x-ratelimit-remaining": String(Math.max(0, 5000 - state.calls.length)),
  };
  if (out.text !== undefined) {
    res.writeHead(out.status, { "content-type": "text/plain; charset=utf-8", ...limit, ...out.headers }).end(out.text);
  } else {
    res
      .writeHead(out.status, { "content-type": "application/json; charset=utf-8", ...limit, ...out.headers })
      .end(out.status === 204 ? undefined : JSON.stringify(out.json ?? {}));
  }
}

/** A GraphQL call (`/api/graphql`, where Octokit sends it for an Enterprise base URL), recorded in `state.calls`. */
export async function handleGraphql(
  ctx: RouteContext,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const { state } = ctx;
  const raw = await readBody(req);
  let out: { status: number; json: unknown };
  try {
    out = await answerGraphql(state, JSON.parse(raw) as { query?: unknown; variables?: Record<string, unknown> }, {
      ctx,
      token: bearerToken(req.headers.authorization),
    });
  } catch (error) {
    out = { status: 400, json: { message: `Problems parsing JSON: ${String(error)}` } };
  }
  state.calls.push({
    method: "POST",
    path: "/graphql",
    status: out.status,
    authorization: req.headers.authorization,
    body: raw,
    at: Date.now(),
  });
  res.writeHead(out.status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(out.json));
}
