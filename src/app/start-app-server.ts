import http from "node:http";
import type { AddressInfo } from "node:net";
import { createNodeMiddleware, Probot, ProbotOctokit } from "probot";
import type { AppEnv } from "../config/env.js";
import type { JobQueue } from "../jobs/job-queue.js";
import type { RunRequest } from "../run/run-request.js";
import { createApp } from "./create-app.js";

export interface AppServer {
  url: string;
  webhookUrl: string;
  probot: Probot;
  queue: JobQueue<RunRequest>;
  close(): Promise<void>;
}

/** Start the webhook server for a configured App (credentials present): Probot's middleware plus `/healthz`. */
export async function startAppServer(env: AppEnv, privateKey: string, options: { throttle?: boolean } = {}): Promise<AppServer> {
  if (!env.appId) throw new Error("APP_ID is not set.");
  if (!env.webhookSecret) throw new Error("WEBHOOK_SECRET is not set: webhook signatures cannot be verified. Set it to the secret configured in the GitHub App.");
  const app = createApp(env);
  const probot = new Probot({
    appId: env.appId,
    privateKey,
    secret: env.webhookSecret,
    logLevel: env.logLevel as "info",
    logFormat: env.logFormat,
    ...(env.githubBaseUrl ? { baseUrl: env.githubBaseUrl } : {}),
    Octokit: ProbotOctokit.defaults((o: Record<string, unknown>) => ({ ...o, throttle: { enabled: options.throttle ?? true } })),
  });
  const middleware = await createNodeMiddleware(app.appFn, { probot, webhooksPath: env.webhookPath });
  const server = http.createServer((req, res) => {
    if (req.url === "/healthz" || req.url === "/ping") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true, ...app.queue().stats() }));
      return;
    }
    void middleware(req, res, () => {
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(env.port, env.host ?? "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  probot.log.info({ port, path: env.webhookPath }, "aider-bot listening");
  return {
    url,
    webhookUrl: `${url}${env.webhookPath}`,
    probot,
    queue: app.queue(),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
