import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";

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
 * A git smart-HTTP server on 127.0.0.1 that runs `git http-backend` as a CGI program (docs/architecture.md#stack). Request
 * bodies stream through untouched (gzip ones with HTTP_CONTENT_ENCODING, which http-backend inflates), and the
 * CGI header block (with its `Status:` line) is turned into the HTTP response head.
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
    const child = runBackend(req, url, user, options.projectRoot, source);
    children.add(child);
    child.on("close", () => children.delete(child));
    bridgeResponse(child, res, state.backendErrors);
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

function runBackend(
  req: http.IncomingMessage,
  url: URL,
  user: string,
  projectRoot: string,
  source: Readonly<Record<string, string | undefined>>,
): ChildProcess {
  const env: Record<string, string> = {
    PATH: source.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: source.HOME ?? "/tmp",
    GIT_PROJECT_ROOT: projectRoot,
    GIT_HTTP_EXPORT_ALL: "1",
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.replace(/^\?/, ""),
    REQUEST_METHOD: req.method ?? "GET",
    CONTENT_TYPE: req.headers["content-type"] ?? "",
    // http-backend refuses receive-pack (push) to an unauthenticated user.
    REMOTE_USER: user,
    REMOTE_ADDR: "127.0.0.1",
    GATEWAY_INTERFACE: "CGI/1.1",
    SERVER_PROTOCOL: "HTTP/1.1",
    // No `git gc --auto` after each push (receive-pack starts one).
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "receive.autogc",
    GIT_CONFIG_VALUE_0: "false",
  };
  if (req.headers["git-protocol"]) env.GIT_PROTOCOL = String(req.headers["git-protocol"]);
  if (req.headers["content-encoding"]) env.HTTP_CONTENT_ENCODING = String(req.headers["content-encoding"]);
  // Without CONTENT_LENGTH (chunked uploads) http-backend reads the body until EOF.
  if (req.headers["content-length"]) env.CONTENT_LENGTH = String(req.headers["content-length"]);
  const child = spawn("git", ["http-backend"], { cwd: projectRoot, env, stdio: ["pipe", "pipe", "pipe"] });
  // The backend may exit before reading the whole body (an error answer): ignore the broken pipe.
  child.stdin!.on("error", () => undefined);
  req.pipe(child.stdin!);
  return child;
}

/** Parse the CGI header block from the backend's stdout, then stream the body with back-pressure. */
function bridgeResponse(child: ChildProcess, res: http.ServerResponse, errors: string[]): void {
  const stdout = child.stdout!;
  let head = Buffer.alloc(0);
  let started = false;
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString("utf8")));

  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const end = headerEnd(head);
    if (!end) return;
    stdout.pause();
    stdout.off("data", onData);
    started = true;
    const { status, headers } = parseCgiHeaders(head.subarray(0, end.at).toString("latin1"));
    res.writeHead(status, headers);
    const rest = head.subarray(end.at + end.length);
    if (rest.length > 0) res.write(rest);
    stdout.pipe(res);
  };
  stdout.on("data", onData);
  child.on("error", (error) => {
    if (started || res.headersSent) return res.destroy(error);
    res.writeHead(500, { "Content-Type": "text/plain" });
    res.end(`could not run git http-backend: ${error.message}\n`);
  });
  child.on("close", (code) => {
    if (stderr.trim()) errors.push(stderr.trim());
    if (started) return;
    res.writeHead(502, { "Content-Type": "text/plain" });
    res.end(`git http-backend exited (${code}) without a response: ${stderr}\n`);
  });
}

/** Position and length of the blank line ending a CGI header block (CRLF or LF style, whichever comes first). */
function headerEnd(buf: Buffer): { at: number; length: number } | null {
  const crlf = buf.indexOf("\r\n\r\n");
  const lf = buf.indexOf("\n\n");
  if (crlf < 0 && lf < 0) return null;
  if (lf >= 0 && (crlf < 0 || lf < crlf)) return { at: lf, length: 2 };
  return { at: crlf, length: 4 };
}

/** CGI headers → HTTP status and headers. `Status: 404 Not Found` sets the status; repeated names are kept. */
export function parseCgiHeaders(text: string): { status: number; headers: Record<string, string | string[]> } {
  let status = 200;
  const headers: Record<string, string | string[]> = {};
  for (const line of text.split(/\r?\n/)) {
    const i = line.indexOf(":");
    if (i <= 0) continue;
    const name = line.slice(0, i).trim();
    const value = line.slice(i + 1).trim();
    if (name.toLowerCase() === "status") {
      status = Number.parseInt(value, 10) || 500;
      continue;
    }
    const prev = headers[name];
    headers[name] = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), value];
  }
  return { status, headers };
}
