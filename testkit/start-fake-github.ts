import http from "node:http";
import path from "node:path";
import os from "node:os";
import { mkdtemp, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { localRunner, type ProcessRunner } from "./run-process.js";
import { FakeGitHubState, type FakeRepo } from "./fake-github-state.js";
import { handleApi, handleGraphql } from "./fake-github-handlers.js";
import type { RouteContext } from "./fake-route-table.js";
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
  exec: ProcessRunner;
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
  /** Runs the fake's git commands (tests pass one whose processes a spawn helper starts); default: `localRunner`. */
  exec?: ProcessRunner;
  /**
   * Every request (API, GraphQL, git) is handled this long after it arrives: a network's round trip to GitHub, for
   * benchmarks of what waits on GitHub (default 0: at once).
   */
  latencyMs?: number;
}): Promise<FakeGitHub> {
  const projectRoot = await mkdtemp(path.join(os.tmpdir(), "fake-github-"));
  const state = new FakeGitHubState(options.botLogin ?? "aider-bot[bot]");
  const exec = options.exec ?? localRunner(options.sourceEnv);
  const gitRequests: FakeGitHub["gitRequests"] = [];
  const bareDir = (repo: FakeRepo) => path.join(projectRoot, repo.owner, `${repo.name}.git`);
  // The URLs are known once the server listens; requests come only after that.
  const ctx: RouteContext = { state, exec, bareDir, apiUrl: "", webUrl: "" };
  const latency = options.latencyMs ?? 0;
  const server = http.createServer((req, res) =>
    latency > 0 ? void setTimeout(() => handle(req, res), latency) : handle(req, res),
  );
  const handle = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname.startsWith("/api/v3/")) return void handleApi(ctx, req, res, url);
    // Octokit sends GraphQL for a GitHub Enterprise base URL (…/api/v3) to …/api/graphql.
    if (url.pathname === "/api/graphql" && req.method === "POST") return void handleGraphql(ctx, req, res);
    const asset = /^\/user-attachments\/assets\/([\w-]+)$/.exec(url.pathname);
    if (asset?.[1] && req.method === "GET") return serveAsset(state, asset[1], req, res);
    // The whole path (`/owner/repo.git/…`) is the CGI's PATH_INFO under the project root.
    if (/^\/[^/]+\/[^/]+\.git\/.*$/.test(url.pathname)) {
      gitRequests.push({ url: req.url ?? "", authorization: req.headers.authorization });
      return serveGit(state, req, res, {
        projectRoot,
        pathInfo: url.pathname,
        query: url.search.slice(1),
        sourceEnv: options.sourceEnv,
      });
    }
    res.writeHead(404).end();
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  ctx.webUrl = `http://127.0.0.1:${port}`;
  ctx.apiUrl = `${ctx.webUrl}/api/v3`;
  return {
    apiUrl: ctx.apiUrl,
    webUrl: ctx.webUrl,
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

/** Git over smart HTTP for a token this fake issued (HTTP Basic auth, as git sends it); 401 otherwise. */
function serveGit(
  state: FakeGitHubState,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  where: {
    projectRoot: string;
    pathInfo: string;
    query: string;
    sourceEnv: Readonly<Record<string, string | undefined>>;
  },
): void {
  const token = basicPassword(req.headers.authorization);
  if (!token || !state.issuedTokens.includes(token)) {
    res.writeHead(401, { "WWW-Authenticate": 'Basic realm="fake-github"' });
    res.end("authentication required");
    return;
  }
  serveGitCgi(req, res, { ...where, remoteUser: "x-access-token" });
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
