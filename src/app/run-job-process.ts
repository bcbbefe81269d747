import path from "node:path";
// The module a job process runs (see exec/fork-worker.ts): one run job, with only what it needs.
import { composeClients, composeRedactor } from "../compose/compose-clients.js";
import { driverSettings } from "../compose/run-settings.js";
import { readEnv, sourceEnv } from "../config/env.js";
import { exposeAzureIdentitySecrets } from "../config/env.js";
import { startSpawnHelper, type SpawnHelper } from "../exec/spawn-helper.js";
import { sandboxProblem } from "../exec/sandbox.js";
import { containerEngineProblem } from "../exec/container-sandbox.js";
import { warmHttpFetch } from "../github/http-fetch.js";
import { asRecordedRead, replayReads } from "../github/read-ahead.js";
import type { RunJobData } from "../run/run-job-data.js";
import { ipcSpendGuard } from "../spend/spend-ipc.js";
import { loadTokenizer } from "../llm/count-tokens.js";
import { warmLlmClient } from "../llm/warm-llm-client.js";
import { warmSyntaxCheck } from "../compose/create-coder-deps.js";
import type { RunOutcome } from "../run/run-outcome.js";
import { createRedactingLogger } from "../security/create-redacting-logger.js";
import { REDACTED, type SecretRedactor } from "../security/redact-secrets.js";
import { containerEngineFrom, createCheckExec, wantsContainer } from "./create-check-exec.js";
import { executeRun } from "./execute-run.js";
import { MODEL_SECRET_VARIABLES } from "./model-secrets.js";
import { meteredLlm } from "./metered-llm.js";
import { observeRateLimit } from "../metrics/observe-rate-limit.js";
import { setMetricSink } from "../metrics/record-metric.js";
import { fingerprint, redactFingerprinted, type SecretFingerprint } from "./secret-fingerprint.js";

/**
 * What a job process receives over IPC: the job, two installation tokens limited to its repository (one for the
 * API writes of the run, one for git), the keys of the providers its models use, and the app's settings without its
 * secrets. Never the App's
 * private key or the webhook secret: a job that is compromised can touch one repository, for an hour at most.
 */
export interface RunJobProcessInput {
  job: RunJobData;
  /** Issues, pull requests and Check Runs of this repository. */
  apiToken: string;
  /** Contents of this repository, for git. */
  gitToken: string;
  /** The secret variables of the providers the run's models use (see model-secrets.ts), by name. */
  modelSecrets?: Record<string, string>;
  bot: { login: string; email: string };
  /** The app's environment less its secrets (see `withoutSecrets`). */
  source: Record<string, string | undefined>;
  /** Fingerprints of the secrets this process must not hold but must still never write (webhook secret, App key lines). */
  fingerprints: SecretFingerprint[];
  /** Model calls reserve and settle their spend through the parent (over IPC), which holds the ledger. */
  spend?: boolean;
  /**
   * The parent fetched (or is fetching) the job's branch into the repository's mirror (see mirror-prefetch): the
   * checkout asks it for the tip over IPC ({@link MIRROR_FETCHED_REQUEST}) instead of fetching on its own.
   */
  mirrorFetched?: boolean;
  /**
   * The parent read GitHub ahead for this job at triage (or is reading, see reads-prefetch): the job's API client
   * asks it for each read ({@link readAheadRequest}) before asking GitHub.
   */
  readsAhead?: boolean;
}

/** A job process's request for one read its parent made ahead (see github/read-ahead's `readKey`). */
export function readAheadRequest(key: string): { readAhead: string } {
  return { readAhead: key };
}

/** The key of a job process's request for a read made ahead, or null when it asks something else. */
export function readAheadKey(message: unknown): string | null {
  const key = (message as { readAhead?: unknown } | null)?.readAhead;
  return typeof key === "string" ? key : null;
}

/** A job process's request for the tip its parent fetched into the mirror for it (answered with a sha or null). */
export const MIRROR_FETCHED_REQUEST = { mirror: "fetched" } as const;

/** Whether a job process's request asks for its mirror fetch (see {@link MIRROR_FETCHED_REQUEST}). */
export function isMirrorFetchedRequest(message: unknown): boolean {
  return (message as { mirror?: unknown } | null)?.mirror === MIRROR_FETCHED_REQUEST.mirror;
}

/** Fingerprints of the app's own secrets (webhook secret, each line of the App's key) for a job process. */
export function secretFingerprints(secrets: readonly (string | undefined)[]): SecretFingerprint[] {
  const lines = secrets.flatMap((s) => (s ? s.split(/\r?\n/) : [])).map((l) => l.trim());
  return [...new Set(lines.filter((l) => l.length >= 8 && !/^-----(BEGIN|END) /.test(l)))].map(fingerprint);
}

/** The environment variables a job process must not see. */
const SECRET_VARIABLES = [
  "WEBHOOK_SECRET",
  "PRIVATE_KEY",
  "PRIVATE_KEY_PATH",
  ...MODEL_SECRET_VARIABLES,
  "REDIS_URL",
  "GITHUB_CLIENT_SECRET",
  "GITHUB_CLIENT_ID",
  "AIDER_BOT_METRICS_TOKEN",
];

/** `source` without the App's secrets: what a job process is started with. */
export function withoutSecrets(source: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(source)) if (v !== undefined && !SECRET_VARIABLES.includes(k)) out[k] = v;
  // The key's path is a secret of its own (the job never reads the key), but its folder must stay hidden from the
  // repository's commands, which a job process's sandbox can only do if it knows where it is.
  if (source.PRIVATE_KEY_PATH) out.AIDER_BOT_KEY_DIR = path.dirname(path.resolve(source.PRIVATE_KEY_PATH));
  return out;
}

/** The bubblewrap probe a spare ran while it waited (~0.1–0.2 s of a job's start otherwise). */
let warmSandboxProbe: Promise<string | null> | null = null;
/** The container engine's probe, likewise (container and auto modes; ~0.5–1.5 s). */
let warmContainerProbe: Promise<string | null> | null = null;

/**
 * This process's spawn helper (exec/spawn-helper): every git, sandbox and repository command of the job is started
 * by it, not by this process's large heap. Started first, while this process is still small and quiet.
 */
let helper: SpawnHelper | null = null;
const spawnHelper = (): SpawnHelper => (helper ??= startSpawnHelper(sourceEnv()));

/**
 * Run by a spare job process before it has a job (see exec/fork-worker's createForkPool): the slow first loads a
 * job would otherwise pay on its own clock: the tokenizer's table (~25 ms), the sandbox probe, tree-sitter's
 * runtime (the syntax check and the map, ~0.1 s), Node's fetch classes (~60 ms, see warmHttpFetch), one model
 * request's code against a local endpoint (see warmLlmClient) and the redaction's loop. Numbers are formatted
 * without ICU (see format-number), which would cost every job process 20–30 ms on first use.
 */
export async function preload(): Promise<void> {
  // The spare's environment is the one its job gets (`withoutSecrets` of the app's): probe bubblewrap with it.
  warmSandboxProbe = sandboxProblem(spawnHelper().exec({ sourceEnv: sourceEnv() }));
  warmContainerProbe = probeContainerEngine();
  warmHttpFetch();
  // The redaction's loop, compiled on dummy text: a job's first model request (tens of KB) paid ~10 ms for it.
  redactFingerprinted(" ".repeat(32_000), [fingerprint("w".repeat(64)), fingerprint("w".repeat(20))], "");
  const [count] = await Promise.all([loadTokenizer(), warmSyntaxCheck(), warmLlmClient().catch(() => undefined)]);
  count("warm up");
}

/** The engine probe for container and auto modes, or null (other modes; an environment the job will reject anyway). */
function probeContainerEngine(): Promise<string | null> | null {
  try {
    const env = readEnv(sourceEnv());
    return wantsContainer(env)
      ? containerEngineProblem(spawnHelper().exec({ sourceEnv: sourceEnv() }), containerEngineFrom(env))
      : null;
  } catch {
    return null;
  }
}

/**
 * A job process's one redactor (its composition root's): the job's two tokens, its model keys, and the App's secrets
 * this process knows only by their fingerprints (the webhook secret, each line of the App's key).
 */
export function jobRedactor(
  input: Pick<RunJobProcessInput, "apiToken" | "gitToken" | "modelSecrets" | "fingerprints">,
): SecretRedactor {
  return composeRedactor({
    secrets: [input.apiToken, input.gitToken, ...Object.values(input.modelSecrets ?? {})],
    passes: [(text) => redactFingerprinted(text, input.fingerprints, REDACTED)],
  });
}

/** The job process's entry (fork-worker's `runChildJob` contract): runs the job and answers its outcome's kind. */
export async function runChildJob(
  input: RunJobProcessInput,
  signal: AbortSignal,
  send: (message: unknown) => void = () => undefined,
  request?: (message: unknown) => Promise<unknown>,
): Promise<{ outcome: RunOutcome["kind"]; pr?: number }> {
  // Metrics observed here (model usage, GitHub's rate limit) go to the parent's registry.
  setMetricSink((metric) => send({ metric }));
  const secrets = input.modelSecrets ?? {};
  // The job's one redactor, built before any writer: its tokens and model keys, and the App's secrets known here only
  // by their fingerprints. The logger, the GitHub clients, the model client, git and the transcript all take it.
  const redactor = jobRedactor(input);
  const env = readEnv({ ...input.source, ...secrets });
  const logger = await createRedactingLogger({ level: env.logLevel, redactor, format: env.logFormat });
  const log = logger.child({ job: input.job.req.jobId, pid: process.pid });
  void loadTokenizer();
  const warm = warmSandboxProbe;
  const settings = driverSettings(env, "app");
  const clients = composeClients({
    redactor,
    source: env.source,
    // Started while this process was a quiet spare (see preload).
    spawnHelper: spawnHelper(),
    models: { endpoint: { baseUrl: env.openaiBaseUrl, apiKey: env.openaiApiKey }, providers: env },
    github: { throttle: env.throttle, log },
  });
  const { exec } = clients;
  const baseUrl = env.githubBaseUrl ? { baseUrl: env.githubBaseUrl } : {};
  const octokit = clients.github(input.apiToken, baseUrl);
  observeRateLimit(octokit, String(input.job.req.installationId));
  // The reads triage made for this job are asked of the parent first, until the coder starts (see reads-prefetch).
  let answered = 0;
  const replay =
    input.readsAhead && request
      ? replayReads(octokit, async (key) => {
          const read = await request(readAheadRequest(key)).then(asRecordedRead, () => null);
          if (read) answered++;
          return read;
        })
      : null;
  const readsAhead = replay && {
    stop: () => {
      replay.stop();
      log.info({ answered }, "reads made at triage answered");
    },
  };
  const checkExec = createCheckExec(env, exec, log, {
    // From the default branch's config only (triage reads it there), never the pull request's head.
    ...(input.job.req.settings.networkAllow ? { repositoryAllow: input.job.req.settings.networkAllow } : {}),
    ...(warm ? { probe: () => warm } : {}),
    ...(warmContainerProbe ? { containerProbe: () => warmContainerProbe! } : {}),
  });
  // After the spawn helper has started (above), so no process this one starts inherits them.
  exposeAzureIdentitySecrets(secrets);
  const llm = await clients.llm({
    settings: settings.llm,
    fallbackModels: input.job.req.settings.fallbackModels ?? env.fallbackModels,
    logger: log,
    // The job's model calls reserve and settle through the parent, which holds the ledger.
    ...(settings.spendGuard && input.spend && request ? { guard: ipcSpendGuard(request) } : {}),
  });
  const outcome = await executeRun(input.job, {
    env,
    settings,
    exec,
    checkExec,
    llm: meteredLlm(llm),
    api: octokit,
    gitToken: async () => input.gitToken,
    commitsApi: clients.github(input.gitToken, baseUrl),
    bot: input.bot,
    logger: log,
    signal,
    redactor,
    ...(readsAhead ? { onCoderStart: readsAhead.stop } : {}),
    ...(input.mirrorFetched && request
      ? {
          mirrorFetched: () =>
            request(MIRROR_FETCHED_REQUEST).then(
              (tip) => (typeof tip === "string" && /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(tip) ? tip : null),
              () => null,
            ),
        }
      : {}),
  }).finally(() => checkExec.close?.());
  // The pull request a run opened, for the schedules dashboard (the parent records it).
  return { outcome: outcome.kind, ...(outcome.kind === "pull-request" ? { pr: outcome.pr.number } : {}) };
}
