import http from "node:http";
import path from "node:path";
import os from "node:os";
import { mkdtemp, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { createExec } from "../exec/create-exec.js";
import type { Exec } from "../exec/types.js";
import { FakeGitHubState, type FakeRepo } from "./fake-github-state.js";
import { routeRequest } from "./fake-github-routes.js";
import { answerGraphql } from "./fake-graphql.js";
import { serveGitCgi } from "./git-cgi.js";

export interface FakeGitHub {
  /** REST base URL, GitHub Enterprise style: `http://127.0.0.1:PORT/api/v3`. */
  apiUrl: string;
  /** Web/git base URL: clone URLs are `${webUrl}/owner/repo.git`. */
  webUrl: string;
  state: FakeGitHubState;
  /** Every Authorization header and URL the git endpoint saw (for token-leak assertions). */
  gitRequests: { url: string; authorization?: string }[];
  bareDir(repo: FakeRepo): string;
  /** How the fake runs git (its REST routes, the seeding helpers): the exec it was given, or one of its own. */
  exec: Exec;
  close(): Promise<void>;
}

/**
 * A local stand-in for GitHub on 127.0.0.1: the REST subset aider-bot calls (see fake-github-routes.ts) and the git
 * smart-HTTP protocol through `git http-backend` over bare repositories. Used by `aider-bot demo` and the e2e tests.
 * Git requires an installation token this fake issued, sent as HTTP Basic auth (never in the URL).
 */
export async function startFakeGitHub(options: {
  botLogin?: string;
  sourceEnv: Readonly<Record<string, string | undefined>>;
  /** Runs the fake's git commands (tests pass one whose processes a spawn helper starts); default: `createExec`. */
  exec?: Exec;
}): Promise<FakeGitHub> {
  const projectRoot = await mkdtemp(path.join(os.tmpdir(), "fake-github-"));
  const state = new FakeGitHubState(options.botLogin ?? "aider-bot[bot]");
  const exec = options.exec ?? createExec({ sourceEnv: options.sourceEnv });
  const gitRequests: FakeGitHub["gitRequests"] = [];
  const bareDir = (repo: FakeRepo) => path.join(projectRoot, repo.owner, `${repo.name}.git`);
  let apiUrl = "";
  let webUrl = "";

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname.startsWith("/api/v3/")) {
      void handleApi(req, res, url);
      return;
    }
    // Octokit sends GraphQL for a GitHub Enterprise base URL (…/api/v3) to …/api/graphql.
    if (url.pathname === "/api/graphql" && req.method === "POST") {
      void handleGraphql(req, res);
      return;
    }
    const asset = /^\/user-attachments\/assets\/([\w-]+)$/.exec(url.pathname);
    if (asset && req.method === "GET") {
      serveAsset(state, asset[1]!, req, res);
      return;
    }
    const gitMatch = /^\/([^/]+)\/([^/]+\.git)(\/.*)$/.exec(url.pathname);
    if (gitMatch) {
      gitRequests.push({ url: req.url ?? "", authorization: req.headers.authorization });
      const token = basicPassword(req.headers.authorization);
      if (!token || !state.issuedTokens.includes(token)) {
        res.writeHead(401, { "WWW-Authenticate": 'Basic realm="fake-github"' });
        res.end("authentication required");
        return;
      }
      serveGitCgi(req, res, {
        projectRoot,
        pathInfo: `/${gitMatch[1]}/${gitMatch[2]}${gitMatch[3]}`,
        query: url.search.slice(1),
        remoteUser: "x-access-token",
        sourceEnv: options.sourceEnv,
      });
      return;
    }
    res.writeHead(404).end();
  });

  async function handleApi(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    let body: Record<string, unknown> = {};
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      // Routes check the fields they need and answer 422 like GitHub; an unparsable body reads as an empty one.
      body = {};
    }
    const segments = url.pathname.slice("/api/v3/".length).split("/").filter(Boolean);
    const method = req.method ?? "GET";
    let out;
    try {
      out = await routeRequest(
        { state, exec, bareDir, apiUrl, webUrl },
        { method, segments, query: url.searchParams, body },
      );
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
      res
        .writeHead(out.status, { "content-type": "text/plain; charset=utf-8", ...limit, ...out.headers })
        .end(out.text);
    } else {
      res
        .writeHead(out.status, { "content-type": "application/json; charset=utf-8", ...limit, ...out.headers })
        .end(out.status === 204 ? undefined : JSON.stringify(out.json ?? {}));
    }
  }

  async function handleGraphql(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    let out: { status: number; json: unknown };
    try {
      out = await answerGraphql(state, JSON.parse(raw) as { query?: unknown; variables?: Record<string, unknown> }, {
        ctx: { state, exec, bareDir, webUrl },
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

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  webUrl = `http://127.0.0.1:${port}`;
  apiUrl = `${webUrl}/api/v3`;
  return {
    apiUrl,
    webUrl,
    state,
    gitRequests,
    bareDir,
    exec,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(projectRoot, { recursive: true, force: true });
    },
  };
}

/** The token of an `Authorization: token …` or `bearer …` header (how Octokit sends an installation token). */
function bearerToken(header: string | undefined): string | null {
  const m = /^(?:token|bearer)\s+(\S+)$/i.exec(header ?? "");
  return m ? m[1]! : null;
}

function basicPassword(header: string | undefined): string | null {
  if (!header?.startsWith("Basic ")) return null;
  const decoded = Buffer.from(header.slice(6), "base64").toString("utf8");
  const i = decoded.indexOf(":");
  return i < 0 ? null : decoded.slice(i + 1);
}

/**
 * An attachment as GitHub serves a private repository's: only with an installation token this fake issued (404
 * otherwise), its bytes with their Content-Type; a large one is streamed, so the reader's cap is what stops it.
 */
function serveAsset(state: FakeGitHubState, id: string, req: http.IncomingMessage, res: http.ServerResponse): void {
  state.assetRequests.push({ path: req.url ?? "", authorization: req.headers.authorization });
  const token = /^(?:token|bearer)\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
  const found = state.assets.get(id);
  if (!token || !state.issuedTokens.includes(token) || !found) {
    res.writeHead(404, { "content-type": "text/plain" }).end("Not Found");
    return;
  }
  if (found.body) {
    res
      .writeHead(200, { "content-type": found.contentType, "content-length": String(found.body.length) })
      .end(found.body);
    return;
  }
  const size = found.size ?? 0;
  res.writeHead(200, { "content-type": found.contentType });
  const chunk = Buffer.alloc(64 * 1024);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(chunk);
  let sent = 0;
  const pump = () => {
    while (sent < size) {
      const n = Math.min(chunk.length, size - sent);
      const part = sent === 0 ? chunk.subarray(0, n) : Buffer.alloc(n);
      sent += n;
      if (!res.write(part)) return void res.once("drain", pump);
    }
    res.end();
  };
  res.on("close", () => (sent = size));
  pump();
}
