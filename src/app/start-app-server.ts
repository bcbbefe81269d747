import http from "node:http";
import type { AddressInfo } from "node:net";
import { Probot, ProbotOctokit } from "probot";
import type { AppEnv } from "../config/env.js";
import type { JobQueue } from "../jobs/job-queue.js";
import type { RunRequest } from "../run/run-request.js";
import { createRedactingLogger, type LineSink } from "../security/create-redacting-logger.js";
import { githubWriteGuard } from "../security/guard-github-writes.js";
import { processRedactor } from "../security/process-redactor.js";
import { createWebhookIntake } from "../security/webhook-intake.js";
import { createApp } from "./create-app.js";

export interface AppServer {
  url: string;
  webhookUrl: string;
  probot: Probot;
  queue: JobQueue<RunRequest>;
  close(): Promise<void>;
}

/**
 * Start the webhook server for a configured App (credentials present): our bounded webhook intake in front of the
 * Probot app, plus `/healthz`. Every secret the process holds is registered with the one redactor first, so no log
 * line, GitHub write or model request carries it.
 */
export async function startAppServer(env: AppEnv, privateKey: string, options: { throttle?: boolean; logFormat?: "json" | "pretty"; logSink?: LineSink } = {}): Promise<AppServer> {
  if (!env.appId) throw new Error("APP_ID is not set.");
  if (!env.webhookSecret) throw new Error("WEBHOOK_SECRET is not set: webhook signatures cannot be verified. Set it to the secret configured in the GitHub App.");
  for (const secret of [env.openaiApiKey, env.webhookSecret, privateKey]) processRedactor.add(secret);
  const app = createApp(env);
  const log = await createRedactingLogger({ level: env.logLevel, redactor: processRedactor, format: options.logFormat ?? env.logFormat ?? "pretty", ...(options.logSink ? { sink: options.logSink } : {}) });
  const probot = new Probot({
    appId: env.appId,
    privateKey,
    secret: env.webhookSecret,
    log,
    ...(env.githubBaseUrl ? { baseUrl: env.githubBaseUrl } : {}),
    Octokit: ProbotOctokit.plugin(githubWriteGuard(processRedactor)).defaults((o: Record<string, unknown>) => ({ ...o, throttle: { enabled: options.throttle ?? true } })),
  });
  await probot.load(app.appFn, { cwd: process.cwd(), addHandler: () => undefined });
  const intake = createWebhookIntake({
    secret: env.webhookSecret,
    log: probot.log,
    receive: (event) => probot.receive(event as Parameters<Probot["receive"]>[0]),
  });
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path === "/healthz" || path === "/ping") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true, ...app.queue().stats() }));
      return;
    }
    if (path === env.webhookPath) {
      void intake.handle(req, res);
      return;
    }
    res.writeHead(404).end();
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
