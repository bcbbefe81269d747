import { generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { Probot, ProbotOctokit } from "probot";
import type { RunJobInput, RunQueue } from "../../src/run/run-job-data.js";
import { createTriageHandler } from "../../src/app/triage-handler.js";
import type { AppServices, HandleResult } from "../../src/triage/triage-services.js";
import type { WebhookEventName } from "@octokit/webhooks-types";
import { examplePayload as githubExample } from "../../testkit/builders/webhook-payloads.js";
import { TEST_APP_KEY } from "../helpers/build-once.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- triage's units rewrite payloads freely, malformed ones too */
/** A deep copy of the first `@octokit/webhooks-examples` payload for `name.action`, with an installation added. */
export function examplePayload(name: WebhookEventName, action: string): Record<string, any> {
  const p: Record<string, any> = githubExample(name, action);
  p.installation = { id: 1 };
  return p;
}

export const API = "https://api.github.com";
export const REPO = "/repos/Codertocat/Hello-World";
/** The run's test key (jest's global setup writes it; a 2048-bit key costs up to half a second to make), or a new one. */
const privateKey =
  readKey() ??
  generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  }).privateKey;

function readKey(): string | undefined {
  try {
    return readFileSync(TEST_APP_KEY, "utf8");
  } catch {
    return undefined; // run without jest's global setup: make one
  }
}

/** A run queue that records jobs and cancels (no handler runs: these tests stop at the enqueue). */
export function recordingQueue(): RunQueue & { jobs: RunJobInput[]; cancelled: string[] } {
  const jobs: RunJobInput[] = [];
  const cancelled: string[] = [];
  return {
    jobs,
    cancelled,
    enqueue: async (job) => (jobs.some((j) => j.id === job.id) ? false : (jobs.push(job), true)),
    cancel: async (key) => (cancelled.push(key), { dropped: 0, aborted: 1 }),
  };
}

/**
 * Probot with retries and throttling off, and the App's triage job handler over it: `triage.receive` runs one
 * delivery as its triage job does (the edge, the installation's Octokit, the config as Probot reads it), results
 * collected.
 */
export async function startProbot(services: Partial<AppServices> = {}) {
  const queue = recordingQueue();
  const results: HandleResult[] = [];
  const probot = new Probot({
    appId: 1,
    privateKey,
    secret: "s",
    logLevel: "fatal",
    Octokit: ProbotOctokit.defaults((o: Record<string, unknown>) => ({
      ...o,
      retry: { enabled: false },
      throttle: { enabled: false },
    })),
  });
  const handler = createTriageHandler({
    app: probot,
    services: { runs: queue, botLogin: async () => "aider-bot[bot]", defaults: { model: "gpt-4o" }, ...services },
    fire: async () => undefined,
    dashboard: () => null,
    onHandled: (r) => results.push(r),
  });
  const receive = (delivery: { id: string; name: string; payload: unknown }) =>
    handler(
      { id: delivery.id, key: "k", installationId: 1, kind: "triage", data: delivery, attempt: 1 },
      new AbortController().signal,
    );
  return { triage: { receive }, queue, results };
}
