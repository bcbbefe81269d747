import type { ChildProcess } from "node:child_process";
import type http from "node:http";
import { spawnPiped } from "./run-process.js";

/** Where and as whom one git smart-HTTP request is served. */
export interface GitCgiRequest {
  /** Folder holding the bare repositories. */
  projectRoot: string;
  /** The path below the project root, e.g. `/acme/app.git/info/refs`. */
  pathInfo: string;
  query: string;
  /** The authenticated user: `git http-backend` refuses pushes without one. */
  remoteUser: string;
  sourceEnv: Readonly<Record<string, string | undefined>>;
  /** Called with what the backend wrote to stderr, when it wrote anything (for diagnosing a failing test). */
  onStderr?: (text: string) => void;
}

/**
 * Serve one git smart-HTTP request by running `git http-backend` as a CGI program over the bare repositories under
 * `projectRoot`: the request body streams in untouched (a gzip one with HTTP_CONTENT_ENCODING, which http-backend
 * inflates), the CGI header block (with its `Status:` line) becomes the response head, and the rest streams out
 * with back-pressure. The one implementation of the fake GitHub's git endpoint and the tests' git server.
 */
export function serveGitCgi(req: http.IncomingMessage, res: http.ServerResponse, options: GitCgiRequest): ChildProcess {
  const env: Record<string, string> = {
    GIT_PROJECT_ROOT: options.projectRoot,
    GIT_HTTP_EXPORT_ALL: "1",
    PATH_INFO: options.pathInfo,
    QUERY_STRING: options.query,
    REQUEST_METHOD: req.method ?? "GET",
    CONTENT_TYPE: req.headers["content-type"] ?? "",
    REMOTE_USER: options.remoteUser,
    REMOTE_ADDR: "127.0.0.1",
    GATEWAY_INTERFACE: "CGI/1.1",
    SERVER_PROTOCOL: "HTTP/1.1",
    // No `git gc --auto` after each push (receive-pack starts one): a process per push that a fake never needs.
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "receive.autogc",
    GIT_CONFIG_VALUE_0: "false",
  };
  if (req.headers["git-protocol"]) env.GIT_PROTOCOL = String(req.headers["git-protocol"]);
  if (req.headers["content-encoding"]) env.HTTP_CONTENT_ENCODING = String(req.headers["content-encoding"]);
  // Without CONTENT_LENGTH (chunked uploads) http-backend reads the body until EOF.
  if (req.headers["content-length"]) env.CONTENT_LENGTH = String(req.headers["content-length"]);
  const child = spawnPiped("git", ["http-backend"], { cwd: options.projectRoot, sourceEnv: options.sourceEnv, env });
  // The backend may exit before reading the whole body (an error answer): ignore the broken pipe.
  child.stdin.on("error", () => undefined);
  req.pipe(child.stdin);
  bridgeResponse(child, res, options.onStderr);
  return child;
}

/** Parse the CGI header block from the backend's stdout, then stream the body with back-pressure. */
function bridgeResponse(child: ChildProcess, res: http.ServerResponse, onStderr?: (text: string) => void): void {
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
    if (stderr.trim()) onStderr?.(stderr.trim());
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
