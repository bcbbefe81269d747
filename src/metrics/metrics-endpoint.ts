import { timingSafeEqual, createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { AppMetrics } from "./app-metrics.js";

const digest = (s: string) => createHash("sha256").update(s).digest();

/** Whether `authorization` is `Bearer <token>` (compared in constant time; no token configured: always true). */
export function metricsAuthorized(authorization: string | undefined, token: string | undefined): boolean {
  if (!token) return true;
  const given = /^Bearer\s+(.+)$/i.exec(authorization ?? "")?.[1]?.trim() ?? "";
  return timingSafeEqual(digest(given), digest(token));
}

/** Answer one `GET /metrics`: the registry's text, or 401 without the configured bearer token. */
export function answerMetrics(
  metrics: AppMetrics,
  token: string | undefined,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  onError: (error: unknown) => void,
): void {
  if (!metricsAuthorized(req.headers.authorization, token)) {
    res
      .writeHead(401, { "content-type": "text/plain", "www-authenticate": 'Bearer realm="aider-bot metrics"' })
      .end("Send the token of AIDER_BOT_METRICS_TOKEN as `Authorization: Bearer <token>`.\n");
    return;
  }
  metrics.text().then(
    (text) => res.writeHead(200, { "content-type": metrics.contentType }).end(text),
    (error: unknown) => {
      onError(error);
      res.writeHead(503, { "content-type": "text/plain" }).end("The metrics could not be collected; see the logs.\n");
    },
  );
}

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/** A listener serving only `/metrics` (AIDER_BOT_METRICS_PORT): a worker's, or a receiver's kept off the webhook port. */
export async function startMetricsServer(options: {
  metrics: AppMetrics;
  port: number;
  host: string;
  token?: string;
  onError(error: unknown): void;
}): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if ((req.url ?? "").split("?")[0] === "/metrics" && (req.method === "GET" || req.method === "HEAD"))
      return answerMetrics(options.metrics, options.token, req, res, options.onError);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host.includes(":") ? `[${options.host}]` : options.host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
