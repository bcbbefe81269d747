import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Probot } from "probot";
import type { AppEnv } from "../config/env.js";
import type { LineSink } from "../security/create-redacting-logger.js";
import { createWebhookIntake } from "../security/webhook-intake.js";
import { createIntakeGate } from "./intake-gate.js";
import { createApp, type AppHandle } from "./create-app.js";
import { createProbot } from "./create-probot.js";
import { answerMetrics, startMetricsServer, type MetricsServer } from "../metrics/metrics-endpoint.js";
import { createSandboxSummary } from "./sandbox-summary.js";
import { createExec } from "../exec/create-exec.js";

export interface AppServer {
  url: string;
  webhookUrl: string;
  probot: Probot;
  app: AppHandle;
  /** Bytes of webhook bodies held now, and the most ever held at once. */
  intakeStats(): { bufferedBytes: number; peakBufferedBytes: number };
  /** Stop answering webhooks, then shut the job engines down (`graceMs` for running jobs, see AppHandle.shutdown). */
  shutdown(graceMs: number): Promise<void>;
}

/**
 * Start the webhook server for a configured App (credentials present): our bounded webhook intake in front of the
 * Probot app, plus `/healthz`. Every secret the process holds is registered with the one redactor first, so no log
 * line, GitHub write or model request carries it.
 */
export async function startAppServer(
  env: AppEnv,
  privateKey: string,
  options: { throttle?: boolean; logFormat?: "json" | "pretty"; logSink?: LineSink; work?: boolean } = {},
): Promise<AppServer> {
  if (!env.appId) throw new Error("APP_ID is not set.");
  if (!env.webhookSecret)
    throw new Error(
      "WEBHOOK_SECRET is not set: webhook signatures cannot be verified. Set it to the secret configured in the GitHub App.",
    );
  // With Redis, AIDER_BOT_ROLE=receiver leaves the jobs to `aider-bot worker` processes; alone, this process works too.
  // Deliveries are answered before background work starts: jobs wait while the intake is busy (see intake-gate).
  const gate = createIntakeGate();
  // `work: false` (tests of the intake alone) records deliveries and starts no job process.
  const app = createApp(env, { work: options.work ?? !(env.redisUrl && env.role === "receiver"), gate });
  const probot = await createProbot(env, privateKey, { ...options, webhookSecret: env.webhookSecret });
  await probot.load(app.appFn, { cwd: process.cwd(), addHandler: () => undefined });
  const intake = createWebhookIntake({
    secret: env.webhookSecret,
    log: probot.log,
    bodyTimeoutMs: env.webhookBodyTimeoutMs,
    // Record the delivery for triage and answer: nothing here waits on GitHub.
    receive: async (event) => {
      const recorded = await app.intake(event);
      // A malformed payload is answered with its reason (the intake's 400), not taken in silently.
      if (typeof recorded === "object") return recorded;
      if (recorded !== "recorded")
        probot.log.debug({ delivery: event.id, event: event.name, recorded }, "webhook not recorded");
      return undefined;
    },
  });
  // Where repository commands run, for /healthz (probed once, in the background; each status comment names the image).
  const sandbox = createSandboxSummary(env, createExec({ sourceEnv: env.source }), probot.log);
  // Headers must arrive within the body deadline too, and the whole request within twice it; Node checks those
  // deadlines every `connectionsCheckingInterval` (30 s by default, far longer than the deadline itself).
  const timeout = env.webhookBodyTimeoutMs;
  const serverOptions: http.ServerOptions = {
    headersTimeout: timeout,
    requestTimeout: 2 * timeout,
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(timeout / 4))),
  };
  const server = http.createServer(serverOptions, (req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path === "/healthz" || path === "/ping") {
      app.stats().then(
        (stats) =>
          res
            .writeHead(200, { "content-type": "application/json" })
            .end(JSON.stringify({ ok: true, ...stats, sandbox: sandbox.current() })),
        (error: unknown) => {
          probot.log.error({ err: error }, "healthz: the job queue did not answer");
          res
            .writeHead(503, { "content-type": "application/json" })
            .end(JSON.stringify({ ok: false, message: "The job queue did not answer; see the logs." }));
        },
      );
      return;
    }
    // `/metrics` on the webhook port unless AIDER_BOT_METRICS_PORT gives it its own listener (see startMetricsListener).
    if (path === "/metrics" && env.metricsPort === undefined) {
      answerMetrics(app.metrics, env.metricsToken, req, res, (error) =>
        probot.log.error({ err: error }, "metrics: could not collect"),
      );
      return;
    }
    if (path === env.webhookPath) {
      const arrived = performance.now();
      res.once("finish", () => app.metrics.webhookAcked((performance.now() - arrived) / 1000));
      const leave = gate.enter();
      res.once("close", leave);
      void intake.handle(req, res).finally(leave);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(env.port, env.host ?? "127.0.0.1", resolve));
  const metricsServer = await startMetricsListener(env, app, probot.log);
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  probot.log.info({ port, path: env.webhookPath }, "aider-bot listening");
  return {
    url,
    webhookUrl: `${url}${env.webhookPath}`,
    probot,
    app,
    intakeStats: () => intake.stats(),
    shutdown: async (graceMs) => {
      await metricsServer?.close();
      await sandbox.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.shutdown(graceMs);
    },
  };
}

/** `/metrics` on its own port when AIDER_BOT_METRICS_PORT is set (a worker's only listener; a receiver's, off the webhook port). */
export async function startMetricsListener(
  env: AppEnv,
  app: AppHandle,
  log: Probot["log"],
): Promise<MetricsServer | null> {
  if (env.metricsPort === undefined) return null;
  const server = await startMetricsServer({
    metrics: app.metrics,
    port: env.metricsPort,
    host: env.metricsHost ?? env.host ?? "127.0.0.1",
    ...(env.metricsToken ? { token: env.metricsToken } : {}),
    onError: (error) => log.error({ err: error }, "metrics: could not collect"),
  });
  log.info({ url: server.url }, "metrics listening");
  return server;
}
