import type http from "node:http";
import { spawnStream } from "../exec/spawn-stream.js";

/**
 * Serve one git smart-HTTP request by running `git http-backend` as a CGI program over the bare repositories
 * under `projectRoot`. `pathInfo` is the path below the project root, e.g. `/acme/app.git/info/refs`.
 */
export function serveGitCgi(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  options: {
    projectRoot: string;
    pathInfo: string;
    query: string;
    remoteUser: string;
    sourceEnv: Readonly<Record<string, string | undefined>>;
  },
): void {
  const env: Record<string, string> = {
    GIT_PROJECT_ROOT: options.projectRoot,
    GIT_HTTP_EXPORT_ALL: "1",
    PATH_INFO: options.pathInfo,
    QUERY_STRING: options.query,
    REQUEST_METHOD: req.method ?? "GET",
    CONTENT_TYPE: req.headers["content-type"] ?? "",
    REMOTE_USER: options.remoteUser, // without it git refuses pushes
    REMOTE_ADDR: "127.0.0.1",
    GATEWAY_INTERFACE: "CGI/1.1",
    // No `git gc --auto` after each push (receive-pack starts one): a process per push that a fake never needs.
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "receive.autogc",
    GIT_CONFIG_VALUE_0: "false",
  };
  if (req.headers["git-protocol"]) env.GIT_PROTOCOL = String(req.headers["git-protocol"]);
  if (req.headers["content-encoding"]) env.HTTP_CONTENT_ENCODING = String(req.headers["content-encoding"]);
  if (req.headers["content-length"]) env.CONTENT_LENGTH = String(req.headers["content-length"]);
  const child = spawnStream("git", ["http-backend"], { cwd: options.projectRoot, sourceEnv: options.sourceEnv, env });
  req.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let headersDone = false;
  child.stdout.on("data", (chunk: Buffer) => {
    if (headersDone) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    // The header block ends at the first blank line, whichever line ending the CGI program used.
    const crlf = head.indexOf("\r\n\r\n");
    const lf = head.indexOf("\n\n");
    const useCrlf = crlf >= 0 && (lf < 0 || crlf < lf);
    const cut = useCrlf ? crlf : lf;
    if (cut < 0) return;
    const sepLen = useCrlf ? 4 : 2;
    const headerText = head.subarray(0, cut).toString("utf8");
    let status = 200;
    for (const line of headerText.split(/\r?\n/)) {
      const i = line.indexOf(":");
      if (i < 0) continue;
      const name = line.slice(0, i).trim();
      const value = line.slice(i + 1).trim();
      if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
      else res.setHeader(name, value);
    }
    res.statusCode = status;
    headersDone = true;
    const rest = head.subarray(cut + sepLen);
    if (rest.length) res.write(rest);
  });
  child.stderr.resume();
  child.on("close", () => res.end());
  child.on("error", () => {
    res.statusCode = 500;
    res.end("git http-backend failed to start");
  });
}
