import pino from "pino";
import { createRunHandler } from "../../src/app/run-handler.js";
import type { ForkPool } from "../../src/exec/fork-worker.js";
import type { AppMetrics } from "../../src/metrics/app-metrics.js";
import type { RunJobData } from "../../src/run/run-job-data.js";
import { prTarget, runRequest } from "#testkit/builders/run-fixtures.js";
import { testOctokit } from "./test-octokit.js";

/** A pull request's run job `d1` on acme/web (installation 7), as triage queues it. */
export const RUN_JOB: RunJobData = {
  req: runRequest({ jobId: "d1", installationId: 7, repo: "web", target: prTarget() }),
  statusCommentId: 1,
  reactTo: { kind: "issue", number: 1 },
  webUrl: "https://github.com",
  command: "/aider",
};

/**
 * The run handler taking {@link RUN_JOB} over `pool` (which stands in for the job process), with the App's other
 * dependencies inert; `extra` adds what the test is about (the tokens or the mirror fetch made at triage).
 */
export async function handleOneRun(
  pool: ForkPool,
  extra: Partial<Pick<Parameters<typeof createRunHandler>[0], "tokens" | "mirrors" | "reads">> = {},
): Promise<void> {
  const handler = createRunHandler({
    env: { source: {}, webhookSecret: "s", privateKey: "k", fallbackModels: [] },
    triageQueued: async () => 0,
    appApi: async () => testOctokit(),
    ...extra,
    bot: async () => ({ login: "aider-bot[bot]", email: "1+aider-bot[bot]@users.noreply.github.com" }),
    log: pino({ level: "silent" }),
    pool,
    spend: null,
    metrics: { runEnded: () => undefined, record: () => undefined } as unknown as AppMetrics,
    dashboard: () => null,
  });
  await handler(
    { id: "d1", key: "acme/web#1", installationId: 7, kind: "run", data: RUN_JOB, attempt: 1 },
    new AbortController().signal,
  );
}

/**
 * A pool whose job asks its parent one thing (`request`), as a job process does over IPC, then ends pushed: `seen`
 * gets the job's input and the parent's answer ("no answers" when the handler gave the job no way to ask).
 */
export function poolAsking(request: unknown, seen: { input?: unknown; answer?: unknown }): ForkPool {
  return {
    run: async (options) => {
      seen.input = options.input;
      seen.answer = options.onRequest
        ? await options.onRequest(request).catch((e: Error) => `refused: ${e.message}`)
        : "no answers";
      return { kind: "done", result: { outcome: "pushed" } };
    },
    idlePid: () => undefined,
    close: () => undefined,
  };
}
