import type { ChildProcess } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { serveGitCgi } from "./git-cgi.js";

export interface GitHttpServerOptions {
  /** Folder holding bare repositories; `<url>/acme/app.git` serves `<projectRoot>/acme/app.git`. */
  projectRoot: string;
  /** When set, every request needs `Authorization: Basic base64(<any user>:<token>)`; others get 401. */
  requireToken?: string;
  /** Environment `git http-backend` starts from (PATH, HOME); default `process.env`. Never forwarded whole. */
  sourceEnv?: Readonly<Record<string, string | undefined>>;
}

export interface SeenGitRequest {
  method: string;
  url: string;
  authorization?: string;
  gitProtocol?: string;
  contentEncoding?: string;
  status: number;
}

export interface GitHttpServer {
  /** Base URL, e.g. `http://127.0.0.1:41234` (no trailing slash). */
  url: string;
  close(): Promise<void>;
  /** Every Authorization header received, in order. */
  seenAuthHeaders: string[];
  /** Every request URL (path + query), in order. */
  seenUrls: string[];
  /** Details of each request, with the status answered. */
  requests: SeenGitRequest[];
  /** stderr of `git http-backend` runs that wrote any (for diagnosing a failing test). */
  backendErrors: string[];
}

/**
 * A git smart-HTTP server on 127.0.0.1 for the git tests: Basic-auth checks and a record of every request, over the
 * fake GitHub's own CGI bridge (testkit/git-cgi.ts), so both serve git the same way.
 */
export async function startGitHttpServer(options: GitHttpServerOptions): Promise<GitHttpServer> {
  const source = options.sourceEnv ?? process.env;
  const children = new Set<ChildProcess>();
  const state: Omit<GitHttpServer, "url" | "close"> = {
    seenAuthHeaders: [],
    seenUrls: [],
    requests: [],
    backendErrors: [],
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const authorization = req.headers.authorization;
    const seen: SeenGitRequest = {
      method: req.method ?? "GET",
      url: `${url.pathname}${url.search}`,
      ...(authorization ? { authorization } : {}),
      ...(req.headers["git-protocol"] ? { gitProtocol: String(req.headers["git-protocol"]) } : {}),
      ...(req.headers["content-encoding"] ? { contentEncoding: String(req.headers["content-encoding"]) } : {}),
      status: 0,
    };
    state.seenUrls.push(seen.url);
    if (authorization) state.seenAuthHeaders.push(authorization);
    state.requests.push(seen);
    res.on("finish", () => (seen.status = res.statusCode));

    const user = checkAuth(authorization, options.requireToken);
    if (user === null) {
      req.resume();
      res.writeHead(401, { "WWW-Authenticate": 'Basic realm="git"', "Content-Type": "text/plain" });
      res.end("authentication required\n");
      return;
    }
    const child = serveGitCgi(req, res, {
      projectRoot: options.projectRoot,
      pathInfo: decodeURIComponent(url.pathname),
      query: url.search.replace(/^\?/, ""),
      remoteUser: user,
      sourceEnv: source,
      onStderr: (text) => state.backendErrors.push(text),
    });
    children.add(child);
    child.on("close", () => children.delete(child));
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ...state,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const child of children) child.kill("SIGKILL");
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The user name for REMOTE_USER, or null when credentials are required and missing or wrong. */
function checkAuth(header: string | undefined, token: string | undefined): string | null {
  const m = /^Basic\s+(\S+)$/i.exec(header ?? "");
  const decoded = m ? Buffer.from(m[1]!, "base64").toString("utf8") : "";
  const colon = decoded.indexOf(":");
  const [user, password] = colon >= 0 ? [decoded.slice(0, colon), decoded.slice(colon + 1)] : [decoded, ""];
  if (token === undefined) return user || "anonymous";
  return password === token ? user || "x-access-token" : null;
}
