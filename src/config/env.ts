/**
 * The only reader of process.env. Everything else receives these values (or an explicit `sourceEnv` for the
 * exec allow-list). Unset values stay undefined; callers say what is missing and how to set it.
 */
export interface AppEnv {
  openaiBaseUrl: string;
  openaiApiKey?: string;
  /** Default model when neither the repo config nor a flag names one. */
  model: string;
  weakModel?: string;
  /** Extra or overriding model prices, USD per million tokens: AIDER_BOT_PRICES='{"my-model":{"input":1,"output":2}}'. */
  prices: Record<string, { input: number; output: number }>;
  /** Let the client continue answers cut at the output limit with an assistant prefix (endpoint must support it). */
  allowPrefill: boolean;
  /**
   * Where lint/test/setup commands run. `auto` (default) and `on`: only inside bubblewrap; when it cannot run here
   * they are skipped (the run still edits and pushes, and says so). `off`: without a sandbox, by explicit choice.
   */
  sandbox: "auto" | "on" | "off";
  /** Keep the network inside the sandbox (default true: installs and many test suites need it). */
  sandboxNetwork: boolean;
  /** Arm the `schedules` of every installed repository's config (default on). */
  schedules: boolean;
  /** How often installed repositories' configs are re-read for schedule changes. */
  scheduleSyncMs: number;
  /** Where repo-map caches live (CLI: outside the checkout). */
  cacheDir?: string;
  /** Worker threads a repo map may use to parse (undefined: cores − 1, at most 7). */
  mapThreads?: number;
  /** Where job checkouts are made (default: the OS temp dir). */
  workDir?: string;
  appId?: string;
  privateKey?: string;
  privateKeyPath?: string;
  webhookSecret?: string;
  webhookPath: string;
  port: number;
  host?: string;
  /** GitHub REST base URL for GitHub Enterprise Server (or a local fake): from GHE_HOST/GHE_PROTOCOL or GITHUB_API_URL. */
  githubBaseUrl?: string;
  concurrency: number;
  logLevel: string;
  /** LOG_FORMAT: `pretty` (Probot's default, for people) or `json` (one object per line, for log collectors). */
  logFormat: "pretty" | "json";
  /** Octokit's rate-limit throttling (AIDER_BOT_THROTTLE=0 turns it off: only for a local fake GitHub in tests). */
  throttle: boolean;
  /** How long `serve` lets running jobs finish on SIGTERM/SIGINT before cutting them off (AIDER_BOT_SHUTDOWN_MS). */
  shutdownMs: number;
  /** `aider-bot run --json` still prints progress to stderr unless AIDER_BOT_PROGRESS=0. */
  progress: boolean;
  /** Set: the job queue is BullMQ on this Redis, shared by receivers and `aider-bot worker` processes. */
  redisUrl?: string;
  /** `serve` with Redis: `receiver` only records webhooks; `all` (default) also works jobs. */
  role: "all" | "receiver";
  /** Where the embedded job store lives without Redis (AIDER_BOT_DATA_DIR; keep it on a persistent volume). */
  dataDir: string;
  /** Jobs running at once per installation, across all workers (AIDER_BOT_PER_INSTALLATION). */
  perInstallation: number;
  /** A running job whose worker stops renewing its lease for this long is taken as lost (AIDER_BOT_LEASE_MS). */
  leaseMs: number;
  /** The raw environment, for the exec allow-list only. */
  source: Readonly<Record<string, string | undefined>>;
}

/** Read and validate the app's environment. `readEnv({ OPENAI_API_KEY: "sk-…" })` */
export function readEnv(source: Readonly<Record<string, string | undefined>> = process.env): AppEnv {
  const protocol = source.GHE_PROTOCOL ?? "https";
  if (protocol !== "https" && protocol !== "http") throw new Error(`GHE_PROTOCOL must be https or http, got "${protocol}".`);
  const ghe = source.GHE_HOST ? `${protocol}://${source.GHE_HOST}/api/v3` : undefined;
  if (ghe) requireHttpUrl("GHE_HOST", ghe, "a host name like ghe.example.com (no scheme, no path)");
  if (source.GITHUB_API_URL) requireHttpUrl("GITHUB_API_URL", source.GITHUB_API_URL, "a URL like https://ghe.example.com/api/v3");
  if (source.OPENAI_BASE_URL) requireHttpUrl("OPENAI_BASE_URL", source.OPENAI_BASE_URL, "a URL like https://api.openai.com/v1");
  const logLevel = source.LOG_LEVEL ?? "info";
  if (!LOG_LEVELS.includes(logLevel)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${logLevel}".`);
  const logFormat = source.LOG_FORMAT ?? "pretty";
  if (logFormat !== "pretty" && logFormat !== "json") throw new Error(`LOG_FORMAT must be pretty or json, got "${logFormat}".`);
  const shutdownMs = Number(source.AIDER_BOT_SHUTDOWN_MS ?? 60_000);
  if (!Number.isFinite(shutdownMs) || shutdownMs < 0) throw new Error(`AIDER_BOT_SHUTDOWN_MS must be a number of milliseconds ≥ 0, got "${source.AIDER_BOT_SHUTDOWN_MS}".`);
  const concurrency = Number(source.AIDER_BOT_CONCURRENCY ?? 2);
  const port = Number(source.PORT ?? 3000);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`AIDER_BOT_CONCURRENCY must be a whole number ≥ 1, got "${source.AIDER_BOT_CONCURRENCY}".`);
  if (!Number.isInteger(port) || port < 0) throw new Error(`PORT must be a port number, got "${source.PORT}".`);
  const sandbox = source.AIDER_BOT_SANDBOX ?? "auto";
  if (sandbox !== "auto" && sandbox !== "on" && sandbox !== "off") throw new Error(`AIDER_BOT_SANDBOX must be auto, on or off, got "${sandbox}".`);
  const mapThreads = source.AIDER_BOT_MAP_THREADS === undefined ? undefined : Number(source.AIDER_BOT_MAP_THREADS);
  if (mapThreads !== undefined && (!Number.isInteger(mapThreads) || mapThreads < 0)) {
    throw new Error(`AIDER_BOT_MAP_THREADS must be a whole number ≥ 0, got "${source.AIDER_BOT_MAP_THREADS}".`);
  }
  const role = source.AIDER_BOT_ROLE ?? "all";
  if (role !== "all" && role !== "receiver") throw new Error(`AIDER_BOT_ROLE must be all or receiver, got "${role}".`);
  const perInstallation = Number(source.AIDER_BOT_PER_INSTALLATION ?? 2);
  if (!Number.isInteger(perInstallation) || perInstallation < 1) throw new Error(`AIDER_BOT_PER_INSTALLATION must be a whole number ≥ 1, got "${source.AIDER_BOT_PER_INSTALLATION}".`);
  const leaseMs = Number(source.AIDER_BOT_LEASE_MS ?? 30_000);
  if (!Number.isFinite(leaseMs) || leaseMs < 500) throw new Error(`AIDER_BOT_LEASE_MS must be a number of milliseconds ≥ 500, got "${source.AIDER_BOT_LEASE_MS}".`);
  const scheduleSyncMs = Number(source.AIDER_BOT_SCHEDULE_SYNC_MS ?? 15 * 60_000);
  if (!Number.isFinite(scheduleSyncMs) || scheduleSyncMs < 100) throw new Error(`AIDER_BOT_SCHEDULE_SYNC_MS must be a number of milliseconds ≥ 100, got "${source.AIDER_BOT_SCHEDULE_SYNC_MS}".`);
  return {
    schedules: source.AIDER_BOT_SCHEDULES !== "off",
    scheduleSyncMs,
    sandbox,
    sandboxNetwork: source.AIDER_BOT_SANDBOX_NETWORK !== "0",
    prices: parsePrices(source.AIDER_BOT_PRICES),
    openaiBaseUrl: source.OPENAI_BASE_URL ?? "https://api.openai.com/v1",
    openaiApiKey: source.OPENAI_API_KEY,
    model: source.AIDER_BOT_MODEL ?? "gpt-4o",
    weakModel: source.AIDER_BOT_WEAK_MODEL,
    allowPrefill: source.AIDER_BOT_ALLOW_PREFILL === "1" || source.AIDER_BOT_ALLOW_PREFILL === "true",
    cacheDir: source.AIDER_BOT_CACHE_DIR,
    ...(mapThreads !== undefined ? { mapThreads } : {}),
    workDir: source.AIDER_BOT_WORK_DIR,
    appId: source.APP_ID,
    privateKey: source.PRIVATE_KEY,
    privateKeyPath: source.PRIVATE_KEY_PATH,
    webhookSecret: source.WEBHOOK_SECRET,
    webhookPath: source.WEBHOOK_PATH ?? "/api/github/webhooks",
    port,
    host: source.HOST,
    githubBaseUrl: ghe ?? source.GITHUB_API_URL,
    concurrency,
    logLevel,
    logFormat,
    throttle: source.AIDER_BOT_THROTTLE !== "0",
    shutdownMs,
    progress: source.AIDER_BOT_PROGRESS !== "0",
    redisUrl: source.REDIS_URL || undefined,
    role,
    dataDir: source.AIDER_BOT_DATA_DIR ?? ".aider-bot/queue",
    perInstallation,
    leaseMs,
    source,
  };
}

/**
 * The raw environment, for commands that need nothing validated from it: the exec allow-list (PATH, HOME…) and the
 * CLI's cache folder. Keeps every `process.env` read in this file. `createExec({ sourceEnv: sourceEnv() })`
 */
export function sourceEnv(): Readonly<Record<string, string | undefined>> {
  return process.env;
}

const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"];

/**
 * Throw an actionable error unless `value` is an http(s) URL. The value is not echoed: a URL may carry credentials
 * (`https://user:key@host`), and start-up errors end up in logs.
 */
function requireHttpUrl(name: string, value: string, example: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} must be ${example}; the value set is not a valid URL.`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error(`${name} must be ${example}; only http and https are supported.`);
}

function parsePrices(raw: string | undefined): Record<string, { input: number; output: number }> {
  if (!raw) return {};
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    throw new Error(`AIDER_BOT_PRICES must be JSON like {"my-model":{"input":1.5,"output":6}} (USD per million tokens).`);
  }
  const out: Record<string, { input: number; output: number }> = {};
  for (const [model, price] of Object.entries(data as Record<string, { input?: unknown; output?: unknown }>)) {
    if (typeof price?.input !== "number" || typeof price?.output !== "number") {
      throw new Error(`AIDER_BOT_PRICES: "${model}" needs numeric "input" and "output" prices (USD per million tokens).`);
    }
    out[model] = { input: price.input, output: price.output };
  }
  return out;
}
