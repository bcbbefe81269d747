import { generateKeyPairSync } from "node:crypto";
import { createRequire } from "node:module";
import { Probot, ProbotOctokit } from "probot";
import type { HandleResult, AppServices } from "../../src/github/handle-event.js";
import { registerHandlers } from "../../src/github/register-handlers.js";
import type { Job } from "../../src/jobs/job.js";
import type { JobQueue } from "../../src/jobs/job-queue.js";
import type { RunRequest } from "../../src/run/run-request.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- webhook example payloads are plain JSON */
const examples = createRequire(import.meta.url)("@octokit/webhooks-examples") as { name: string; examples: Record<string, any>[] }[];

/** A deep copy of the first `@octokit/webhooks-examples` payload for `name.action`, with an installation added. */
export function examplePayload(name: string, action: string): Record<string, any> {
  const p = structuredClone(examples.find((e) => e.name === name)!.examples.find((x) => x.action === action)!);
  p.installation = { id: 1 };
  return p;
}

export const API = "https://api.github.com";
export const REPO = "/repos/Codertocat/Hello-World";
const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048, privateKeyEncoding: { type: "pkcs8", format: "pem" }, publicKeyEncoding: { type: "spki", format: "pem" } });

/** A queue that records jobs and cancels (no handler runs: these tests stop at the enqueue). */
export function recordingQueue(): JobQueue<RunRequest> & { jobs: Job<RunRequest>[]; cancelled: string[] } {
  const jobs: Job<RunRequest>[] = [];
  const cancelled: string[] = [];
  return {
    jobs,
    cancelled,
    enqueue: (job) => (jobs.some((j) => j.id === job.id) ? false : (jobs.push(job), true)),
    seen: (id) => jobs.some((j) => j.id === id),
    cancel: (key) => (cancelled.push(key), 1),
    idle: async () => undefined,
    drain: async () => undefined,
    shutdown: async () => [],
    stats: () => ({ running: 0, queued: jobs.length }),
  };
}

/** Probot with retries and throttling off, our handlers registered, results collected. */
export async function startProbot(services: Partial<AppServices> = {}) {
  const queue = recordingQueue();
  const results: HandleResult[] = [];
  const probot = new Probot({
    appId: 1,
    privateKey,
    secret: "s",
    logLevel: "fatal",
    Octokit: ProbotOctokit.defaults((o: Record<string, unknown>) => ({ ...o, retry: { enabled: false }, throttle: { enabled: false } })),
  });
  await probot.load((app) => registerHandlers(app, { queue, botLogin: async () => "aider-bot[bot]", defaults: { model: "gpt-4o" }, ...services }, (r) => results.push(r)));
  return { probot, queue, results };
}
