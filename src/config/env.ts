import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { z } from "zod";
import {
  githubBaseUrl,
  httpUrl,
  imageTable,
  modelList,
  number,
  offUnless,
  oneOf,
  onUnless,
  prices,
  text,
  variable,
  type Variable,
} from "./env-schemas.js";
import { AZURE_IDENTITY_SECRET_VARIABLES, PROVIDER_VARIABLES } from "./env-providers.js";
import { badHostPatterns, badInternalEntries, parseNetworkSetting, splitList } from "../egress/network-policy.js";
import { parseProxyUrl, type UpstreamProxy } from "../egress/upstream-proxy.js";

/**
 * The only reader of process.env. Everything else receives these values (or an explicit `sourceEnv` for the
 * exec allow-list). Every variable the app reads is one entry of `VARIABLES` below: the field it fills, the
 * variable's name, and a zod schema that validates, converts and defaults it. Adding a variable is one line there.
 *
 * Rules every entry follows:
 * - An unset or empty variable counts as unset; optional values without a default stay undefined, and callers
 *   say what is missing and how to set it.
 * - A problem names the variable and what a good value looks like. Only value kinds that cannot hold a secret
 *   (numbers, enumerations) echo the value; URLs, keys and free text never do, since start-up errors end up in logs.
 */

type Raw = string | undefined;

/** `$XDG_STATE_HOME/aider-bot/queue`, else `~/.local/state/aider-bot/queue` (the XDG base-directory default). */
export function defaultDataDir(source: Readonly<Record<string, Raw>> = process.env, home: string = homedir()): string {
  const state =
    source.XDG_STATE_HOME && isAbsolute(source.XDG_STATE_HOME) ? source.XDG_STATE_HOME : join(home, ".local", "state");
  return join(state, "aider-bot", "queue");
}

const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

/** Every variable the app reads, keyed by the `AppEnv` field it fills. */
const VARIABLES = {
  /** The OpenAI-compatible endpoint's base URL. */
  openaiBaseUrl: variable(
    "OPENAI_BASE_URL",
    httpUrl("a URL like https://api.openai.com/v1").default("https://api.openai.com/v1"),
  ),
  /** The endpoint's key (a local endpoint may need none). A secret: never logged or echoed. */
  openaiApiKey: variable("OPENAI_API_KEY", text()),
  ...PROVIDER_VARIABLES,
  /** Default model when neither the repo config nor a flag names one. */
  model: variable("AIDER_BOT_MODEL", z.string().default("gpt-4o")),
  /** The cheaper model for commit subjects (default: the run's model). */
  weakModel: variable("AIDER_BOT_WEAK_MODEL", text()),
  /** Extra or overriding model prices, USD per million tokens: AIDER_BOT_PRICES='{"my-model":{"input":1,"output":2}}'. */
  prices: variable("AIDER_BOT_PRICES", prices()),
  /** The operator's spend limits, a YAML file of defaults and per-installation overrides (see README "Spend limits"). */
  budgetFile: variable("AIDER_BOT_BUDGET_FILE", text()),
  /** Models tried in order when the run's model fails, comma-separated (a repository's `fallback_models` replaces them). */
  fallbackModels: variable("AIDER_BOT_FALLBACK_MODELS", modelList()),
  /** A YAML file of model settings (context window, output limit, edit format, images, prices) over the built-in table. */
  modelSettingsFile: variable("AIDER_BOT_MODEL_SETTINGS", text()),
  /**
   * Prompt caching of model requests: `auto` (default) sends cache breakpoints and a per-run cache key, so a run's
   * later rounds are read from the provider's cache; `off` sends no cache hints for any repository.
   */
  promptCache: variable("AIDER_BOT_PROMPT_CACHE", oneOf(["auto", "off"], "auto or off").default("auto")),
  /** Let the client continue answers cut at the output limit with an assistant prefix (endpoint must support it). */
  allowPrefill: variable("AIDER_BOT_ALLOW_PREFILL", offUnless("1", "true")),
  /**
   * Where lint/test/setup commands run. `container`: in the repository's container image through a container engine.
   * `bubblewrap` and `on`: only inside bubblewrap. `auto` (default): a working container engine, else bubblewrap;
   * when none can run here, commands are skipped (the run still edits and pushes, and says so). `off`: without a
   * sandbox, by explicit choice.
   */
  sandbox: variable(
    "AIDER_BOT_SANDBOX",
    oneOf(["auto", "on", "off", "bubblewrap", "container"], "auto, container, bubblewrap, on or off").default("auto"),
  ),
  /**
   * Container mode (`AIDER_BOT_SANDBOX=container`, or `auto` when an engine works): `podman` runs the engine's CLI
   * here; `docker` talks to a Docker daemon through its socket (AIDER_BOT_CONTAINER_SOCKET, default the CLI's own).
   */
  containerEngine: variable(
    "AIDER_BOT_CONTAINER_ENGINE",
    oneOf(["podman", "docker"], "podman or docker").default("podman"),
  ),
  /** The Docker daemon's socket for `docker` (`unix:///var/run/docker.sock`), or Podman's remote socket. */
  containerSocket: variable("AIDER_BOT_CONTAINER_SOCKET", text()),
  /** Podman: a registries.conf of its own for pulls (mirrors, a plain-HTTP registry marked `insecure`). */
  containerRegistriesConf: variable("AIDER_BOT_CONTAINER_REGISTRIES_CONF", text()),
  /** Podman's OCI runtime (`runc` works on cgroup v1 hosts where the default crun refuses); empty: the engine's default. */
  containerRuntime: variable("AIDER_BOT_CONTAINER_RUNTIME", z.string().default("runc")),
  /** Podman's cgroup manager (`cgroupfs` where systemd does not manage cgroups, e.g. inside a container or a VM). */
  containerCgroupManager: variable("AIDER_BOT_CONTAINER_CGROUP_MANAGER", z.string().default("cgroupfs")),
  /** Limits of a repository's container: memory (`2g`), CPUs (`1.5`), processes. */
  containerMemory: variable("AIDER_BOT_CONTAINER_MEMORY", z.string().default("2g")),
  containerCpus: variable("AIDER_BOT_CONTAINER_CPUS", z.string().default("2")),
  containerPids: variable("AIDER_BOT_CONTAINER_PIDS", number(16, "a whole number ≥ 16", true).default(1024)),
  /** Open files and processes per user inside the container (soft:hard), below the host's hard limits. */
  containerUlimits: variable("AIDER_BOT_CONTAINER_ULIMITS", z.string().default("nofile=1024:1024,nproc=4096:4096")),
  /** The image when neither the repository nor its toolchain names one. */
  defaultImage: variable("AIDER_BOT_DEFAULT_IMAGE", z.string().default("docker.io/library/buildpack-deps:bookworm")),
  /** Overrides of the toolchain → image table, JSON: `{"python:3.12":"python:3.12-slim","node":"node:20"}`. */
  toolchainImages: variable("AIDER_BOT_TOOLCHAIN_IMAGES", imageTable()),
  /**
   * The sandbox's network: `registries` (default: package registries only, through the app's filtering proxy),
   * `none` (loopback only) or `open` (the host's network). The older `0` and `1` mean `none` and `open`.
   */
  sandboxNetwork: variable(
    "AIDER_BOT_SANDBOX_NETWORK",
    z
      .string()
      .optional()
      .transform((raw, ctx) => {
        const policy = parseNetworkSetting(raw);
        if (policy !== null) return policy;
        ctx.issues.push({
          code: "custom",
          input: raw,
          message: `must be none, registries or open (0 and 1 still mean none and open), got "${raw}"`,
        });
        return z.NEVER;
      }),
  ),
  /** Hosts added to the `registries` list (names or `*.example.org`), commas or spaces between them. */
  egressAllow: variable("AIDER_BOT_EGRESS_ALLOW", hostList(badHostPatterns, "host names or *.wildcards")),
  /** A file of hosts (one a line, `#` comments) that replaces the built-in registries list. */
  egressAllowFile: variable("AIDER_BOT_EGRESS_ALLOW_FILE", text()),
  /** Exact `host:port` pairs on private or loopback addresses the proxy may reach (internal mirrors). */
  egressInternal: variable("AIDER_BOT_EGRESS_INTERNAL", hostList(badInternalEntries, "host:port pairs")),
  /** Whether a repository's `sandbox.network.allow` adds hosts (`0`: it does not). */
  egressRepoAllow: variable("AIDER_BOT_EGRESS_REPO_ALLOW", onUnless("0")),
  /** The host's own proxy, which the sandbox's allowed connections go through. May hold a password: never echoed. */
  hostProxy: variable(["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"], hostProxy()),
  /** Arm the `schedules` of every installed repository's config (default on; `off` turns them off). */
  schedules: variable("AIDER_BOT_SCHEDULES", onUnless("off")),
  /** How often installed repositories' configs are re-read for schedule changes. */
  scheduleSyncMs: variable(
    "AIDER_BOT_SCHEDULE_SYNC_MS",
    number(100, "a number of milliseconds ≥ 100").default(15 * 60_000),
  ),
  /** Where repo-map caches live (CLI: outside the checkout). */
  cacheDir: variable("AIDER_BOT_CACHE_DIR", text()),
  /**
   * How long a tool install that failed for want of the network (no package index reachable) is not tried again on
   * the repository's later jobs, in minutes (0: every job tries again). See docs/checks.md (tools shelf).
   */
  toolRetryMinutes: variable("AIDER_BOT_TOOL_RETRY_MINUTES", number(0, "a number of minutes ≥ 0").default(30)),
  /**
   * Keep a shallow mirror of each repository in the cache dir and make every depth-1 checkout from it (default on;
   * `0` clones from scratch every run). Off by itself when AIDER_BOT_SANDBOX=off: the repository's commands could
   * then write into the mirror that later runs start from.
   */
  gitMirrors: variable("AIDER_BOT_GIT_MIRRORS", onUnless("0")),
  /** Worker threads a repo map may use to parse (undefined: cores − 1, at most 7). */
  mapThreads: variable("AIDER_BOT_MAP_THREADS", number(0, "a whole number ≥ 0", true).optional()),
  /** Where job checkouts are made (default: the OS temp dir). */
  workDir: variable("AIDER_BOT_WORK_DIR", text()),
  /** The GitHub App's id (`serve`). */
  appId: variable("APP_ID", text()),
  /** The App's private key in PEM, or PRIVATE_KEY_PATH to a file holding it. A secret. */
  privateKey: variable("PRIVATE_KEY", text()),
  /** A file holding the App's private key, when PRIVATE_KEY is not set. */
  privateKeyPath: variable("PRIVATE_KEY_PATH", text()),
  /**
   * Set by the app for its job processes, which never get PRIVATE_KEY_PATH: the folder of the App's key file, so their
   * sandboxes still hide it. Not for operators.
   */
  keyDir: variable("AIDER_BOT_KEY_DIR", text()),
  /** Verifies every delivery's signature (`serve` refuses to start without it). A secret. */
  webhookSecret: variable("WEBHOOK_SECRET", text()),
  /** Where GitHub posts webhooks. */
  webhookPath: variable("WEBHOOK_PATH", z.string().default("/api/github/webhooks")),
  /**
   * How long a webhook's headers, and then its body, may take to arrive (default 10000, GitHub's own wait for an
   * answer): a slower sender gets 408 and its connection is closed, so stalled strangers cannot hold the intake.
   */
  webhookBodyTimeoutMs: variable(
    "AIDER_BOT_WEBHOOK_BODY_TIMEOUT_MS",
    number(100, "a number of milliseconds ≥ 100", true).default(10_000),
  ),
  /** The HTTP port `serve` listens on. */
  port: variable("PORT", number(0, "a port number", true).default(3000)),
  /** The address `serve` binds (default 127.0.0.1). */
  host: variable("HOST", text()),
  /** GitHub REST base URL for GitHub Enterprise Server (or a local fake): from GHE_HOST/GHE_PROTOCOL or GITHUB_API_URL. */
  githubBaseUrl: variable(["GHE_HOST", "GHE_PROTOCOL", "GITHUB_API_URL"], githubBaseUrl()),
  /** Jobs run at the same time by one process. */
  concurrency: variable("AIDER_BOT_CONCURRENCY", number(1, "a whole number ≥ 1", true).default(2)),
  /** Pino's level for the app's logs. */
  logLevel: variable("LOG_LEVEL", oneOf(LOG_LEVELS, `one of ${LOG_LEVELS.join(", ")}`).default("info")),
  /** LOG_FORMAT: `pretty` (Probot's default, for people) or `json` (one object per line, for log collectors). */
  logFormat: variable("LOG_FORMAT", oneOf(["pretty", "json"], "pretty or json").default("pretty")),
  /** Octokit's rate-limit throttling (AIDER_BOT_THROTTLE=0 turns it off: only for a local fake GitHub in tests). */
  throttle: variable("AIDER_BOT_THROTTLE", onUnless("0")),
  /** How long `serve` lets running jobs finish on SIGTERM/SIGINT before cutting them off (AIDER_BOT_SHUTDOWN_MS). */
  shutdownMs: variable("AIDER_BOT_SHUTDOWN_MS", number(0, "a number of milliseconds ≥ 0").default(60_000)),
  /**
   * A job process kept started ahead, its modules loaded, so a job does not wait ~0.5 s for them (AIDER_BOT_SPARE=0:
   * none; each job's process starts with the job, and an idle app holds no second Node process).
   */
  spare: variable("AIDER_BOT_SPARE", onUnless("0")),
  /** `aider-bot run --json` still prints progress to stderr unless AIDER_BOT_PROGRESS=0. */
  progress: variable("AIDER_BOT_PROGRESS", onUnless("0")),
  /** Run jobs on Redis (BullMQ) instead of the embedded store. May hold a password: never echoed. */
  redisUrl: variable("REDIS_URL", text()),
  /** `serve` with Redis: `receiver` only records webhooks; `all` (default) also works jobs. */
  role: variable("AIDER_BOT_ROLE", oneOf(["all", "receiver"], "all or receiver").default("all")),
  /**
   * Where the embedded job store lives without Redis (keep it on a persistent volume). The default does not depend on
   * the working directory: two apps started from one folder used to share `.aider-bot/queue` and take each other's jobs.
   */
  dataDir: variable("AIDER_BOT_DATA_DIR", z.string().default(defaultDataDir())),
  /** How long triage shares a repository's config and a user's permission between events (0: every event reads both). */
  triageCacheMs: variable("AIDER_BOT_TRIAGE_CACHE_MS", number(0, "a number of milliseconds ≥ 0").default(10_000)),
  /** Jobs running at once per installation, across all workers. */
  perInstallation: variable("AIDER_BOT_PER_INSTALLATION", number(1, "a whole number ≥ 1", true).default(2)),
  /** A running job whose worker stops renewing its lease for this long is taken as lost. */
  leaseMs: variable("AIDER_BOT_LEASE_MS", number(500, "a number of milliseconds ≥ 500").default(30_000)),
  /** Serve `/metrics` on this port only (a worker's listener; `serve` then keeps it off the webhook port). */
  metricsPort: variable("AIDER_BOT_METRICS_PORT", number(0, "a port number", true).optional()),
  /** The address the metrics port binds (default: HOST, else 127.0.0.1). */
  metricsHost: variable("AIDER_BOT_METRICS_HOST", text()),
  /** A bearer token `/metrics` requires (`Authorization: Bearer …`). A secret: never logged or echoed. */
  metricsToken: variable("AIDER_BOT_METRICS_TOKEN", text()),
  /** Keep a dashboard issue per repository with schedules (default on; `off` turns it off). */
  scheduleDashboard: variable("AIDER_BOT_SCHEDULE_DASHBOARD", onUnless("off")),
};

/** A list of entries, each checked by `bad` (which returns the entries that are not good). Echoes only the bad ones' count. */
function hostList(bad: (entries: readonly string[]) => string[], what: string) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const entries = splitList(raw);
      const wrong = bad(entries);
      if (wrong.length === 0) return entries;
      ctx.issues.push({
        code: "custom",
        input: raw,
        message: `must list ${what}; ${wrong.length} entr${wrong.length === 1 ? "y is" : "ies are"} not`,
      });
      return z.NEVER;
    });
}

/** HTTPS_PROXY/HTTP_PROXY (upper or lower case) and NO_PROXY as an upstream for the egress proxy; http:// proxies only. */
function hostProxy() {
  return z.record(z.string(), z.string().optional()).transform((v, ctx): UpstreamProxy | undefined => {
    const httpsRaw = v.HTTPS_PROXY ?? v.https_proxy;
    const httpRaw = v.HTTP_PROXY ?? v.http_proxy;
    const https = parseProxyUrl(httpsRaw);
    const http = parseProxyUrl(httpRaw);
    for (const [name, raw, parsed] of [
      ["HTTPS_PROXY", httpsRaw, https],
      ["HTTP_PROXY", httpRaw, http],
    ] as const)
      if (raw && !parsed)
        ctx.issues.push({ code: "custom", input: name, path: [name], message: "must be an http:// proxy URL" });
    if (!https && !http) return undefined;
    return {
      ...(https ? { https } : {}),
      ...(http ? { http } : {}),
      noProxy: splitList(v.NO_PROXY ?? v.no_proxy),
    };
  });
}

type Variables = typeof VARIABLES;
type Values = { [K in keyof Variables]: z.output<Variables[K]["schema"]> };
type UndefinedKeys<T> = { [K in keyof T]: undefined extends T[K] ? K : never }[keyof T];

/** The app's validated environment: one field per entry of `VARIABLES` (optional where it may be unset). */
export type AppEnv = Omit<Values, UndefinedKeys<Values>> &
  Partial<Pick<Values, UndefinedKeys<Values>>> & {
    /** The raw environment, for the exec allow-list only. */
    source: Readonly<Record<string, Raw>>;
  };

/**
 * The variables that shape a run whichever driver starts it (the App, the Action, the CLI): the models and their
 * prices and fallbacks, prefill, the repo map's threads. The Action reads these from its runner's environment too.
 */
/** The native providers' variables (see llm/provider-endpoints.ts): the App, the Action and the CLI read the same. */
export const PROVIDER_ENV_FIELDS = [
  "anthropicApiKey",
  "anthropicBaseUrl",
  "awsRegion",
  "awsAccessKeyId",
  "awsSecretAccessKey",
  "awsSessionToken",
  "awsBearerTokenBedrock",
  "bedrockBaseUrl",
  "vertexRegion",
  "vertexProjectId",
  "vertexBaseUrl",
  "azureEndpoint",
  "azureApiKey",
  "azureIdentitySecrets",
  "azureApiVersion",
] as const satisfies readonly (keyof Variables)[];

/** The native providers' part of the environment. */
export type ProviderEnv = Pick<AppEnv, (typeof PROVIDER_ENV_FIELDS)[number]>;

export const RUN_ENV_FIELDS = [
  ...PROVIDER_ENV_FIELDS,
  "model",
  "weakModel",
  "fallbackModels",
  "prices",
  "modelSettingsFile",
  "allowPrefill",
  "mapThreads",
  "promptCache",
] as const satisfies readonly (keyof Variables)[];

/** The environment's part of a run (see {@link RUN_ENV_FIELDS}). */
export type RunEnv = Pick<AppEnv, (typeof RUN_ENV_FIELDS)[number]>;

/** Read and validate the app's environment; one error lists every problem. `readEnv({ OPENAI_API_KEY: "sk-…" })` */
export function readEnv(source: Readonly<Record<string, Raw>> = process.env): AppEnv {
  return { ...(readVariables(source, Object.keys(VARIABLES) as (keyof Variables)[]) as Values), source } as AppEnv;
}

/** Only the run's variables (validated like {@link readEnv}): what the Action takes from its runner's environment. */
export function readRunEnv(source: Readonly<Record<string, Raw>>): RunEnv {
  return readVariables(source, RUN_ENV_FIELDS) as RunEnv;
}

function readVariables(source: Readonly<Record<string, Raw>>, fields: readonly (keyof Variables)[]): Partial<Values> {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const field of fields) {
    const { names, schema } = VARIABLES[field] as Variable<z.ZodType>;
    const input =
      typeof names === "string"
        ? valueOf(source, names)
        : Object.fromEntries(names.map((name) => [name, valueOf(source, name)]));
    const result = schema.safeParse(input);
    if (result.success) {
      if (result.data !== undefined) values[field] = result.data;
      continue;
    }
    for (const issue of result.error.issues) {
      const name = typeof names === "string" ? names : String(issue.path[0] ?? names.join("/"));
      problems.push(`${name} ${issue.message}`);
    }
  }
  if (problems.length > 0)
    throw new Error(
      problems.length === 1
        ? problems[0]
        : `The environment has ${problems.length} problems:\n- ${problems.join("\n- ")}`,
    );
  return values as Partial<Values>;
}

/**
 * The raw environment, for commands that need nothing validated from it: the exec allow-list (PATH, HOME…) and the
 * CLI's cache folder. Keeps every `process.env` read in this file. `createExec({ sourceEnv: sourceEnv() })`
 */
export function sourceEnv(): Readonly<Record<string, Raw>> {
  return process.env;
}

/** An empty variable (`OPENAI_BASE_URL=` in a .env file) means "not set", so its default applies. */
function valueOf(source: Readonly<Record<string, Raw>>, name: string): Raw {
  const raw = source[name];
  return raw === "" ? undefined : raw;
}

/**
 * Give a job process's Entra ID secrets to @azure/identity, which reads them only from `process.env`. A job process
 * starts without them (every provider's secrets are withheld) and receives over IPC those its run's models need;
 * these are the only ones a library must find in the environment. The process runs one job and exits, and every
 * command it starts gets an explicit environment, so they reach no repository command.
 */
export function exposeAzureIdentitySecrets(
  secrets: Readonly<Record<string, string>>,
  target: Record<string, string | undefined> = process.env,
): void {
  for (const name of AZURE_IDENTITY_SECRET_VARIABLES) if (secrets[name]) target[name] = secrets[name];
}
