import type { Logger } from "pino";
import type { ProviderEnv } from "../config/env.js";
import { startSpawnHelper, type SpawnHelper } from "../exec/spawn-helper.js";
import type { Exec } from "../exec/types.js";
import { tokenOctokit, type TokenOctokit } from "../github/token-octokit.js";
import { endpointSecrets, providerEndpoints } from "../llm/provider-endpoints.js";
import type { SpendGuard } from "../llm/spend-guard.js";
import type { LlmClient } from "../llm/types.js";
import { createSecretRedactor, type SecretRedactor } from "../security/redact-secrets.js";
import { composeLlm } from "./compose-llm.js";
import type { DriverSettings } from "./run-settings.js";

/** Octokit's own request log (a driver may route its levels elsewhere, as the Action does). */
export type OctokitLog = Record<"debug" | "info" | "warn" | "error", (message: string) => unknown>;

/** Where a driver's models are: the OpenAI-compatible endpoint and the native providers' variables. */
export interface ModelEndpoints {
  endpoint: { baseUrl: string; apiKey: string | undefined };
  /** The native providers' variables (Anthropic, Bedrock, Vertex, Azure); absent: only the OpenAI-compatible endpoint. */
  providers?: Partial<ProviderEnv>;
}

/**
 * The redactor of one driver's process, built once by its composition root: it knows `secrets`, every key of the
 * driver's model endpoints, the secret shapes, and then runs `passes` (the job process's fingerprinted secrets). It
 * is a value handed to each writer (the logger, the GitHub write guard, the model client, git's commit messages,
 * the transcript), so what it redacts does not depend on the order the writers were built in, and a secret of one
 * redactor never leaks into (or is missed by) another.
 */
export function composeRedactor(o: {
  secrets: readonly (string | undefined | null)[];
  models?: ModelEndpoints;
  passes?: readonly ((text: string) => string)[];
}): SecretRedactor {
  const models = o.models ? endpointSecrets(providerEndpoints(o.models.providers ?? {}, o.models.endpoint)) : [];
  return createSecretRedactor([...o.secrets, ...models], o.passes ?? []);
}

/** What a run driver (the App's job process, the Action, the CLI) gets from the composition root. */
export interface DriverClients {
  /** The driver's one redactor (see {@link composeRedactor}); every client below writes through it. */
  redactor: SecretRedactor;
  /** Exec over the driver's spawn helper: every git and repository command of its runs is started by it. */
  exec: Exec;
  /**
   * A GitHub client for `auth` with the write guard over {@link redactor} (a token GitHub mints is registered with
   * it) and the driver's throttle settings.
   */
  github(auth: string, options?: { baseUrl?: string; userAgent?: string; log?: OctokitLog }): TokenOctokit;
  /** A run's model client over the driver's endpoints, redacting every message with {@link redactor}. */
  llm(options: {
    settings: DriverSettings["llm"];
    fallbackModels: readonly string[] | undefined;
    guard?: SpendGuard;
    logger?: { warn(obj: object, msg?: string): void };
  }): Promise<LlmClient>;
}

/**
 * The clients of one driver, built in one place for the App's job process, the Action and the CLI: the spawn
 * helper (started at the first command unless the driver started it earlier, as a spare job process does while it
 * waits), the
 * GitHub clients and the model clients, all over the driver's redactor.
 */
export function composeClients(o: {
  redactor: SecretRedactor;
  /** The environment the spawn helper's children get theirs from (`sourceEnv`). */
  source: Readonly<Record<string, string | undefined>>;
  /** A helper the driver already started; absent: one is started now with `source`. */
  spawnHelper?: SpawnHelper;
  models: ModelEndpoints;
  /**
   * For the drivers that talk to GitHub (the CLI does not): Octokit's throttling (the `throttle` setting) and the
   * driver's (redacting) logger, where Octokit's request log and rate-limit notices go.
   */
  github?: { throttle: boolean; log: Logger };
}): DriverClients {
  const { redactor } = o;
  // The helper is started at the first command, not before: an Action step that only replies starts no process.
  let exec: Exec | null = null;
  const helperExec = () => (exec ??= (o.spawnHelper ?? startSpawnHelper(o.source)).exec({ sourceEnv: o.source }));
  let Octokit: ReturnType<typeof tokenOctokit> | null = null;
  return {
    redactor,
    exec: { run: (req) => helperExec().run(req), startWaiting: (req) => helperExec().startWaiting!(req) },
    github: (auth, options = {}) => {
      const gh = o.github;
      if (!gh) throw new Error("this driver was composed without GitHub: it has no GitHub client to give");
      Octokit ??= tokenOctokit(redactor, { throttle: gh.throttle, log: gh.log });
      return new Octokit({
        auth,
        log: options.log ?? gh.log,
        ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
        ...(options.userAgent ? { userAgent: options.userAgent } : {}),
      });
    },
    llm: (options) =>
      composeLlm({
        settings: options.settings,
        fallbackModels: options.fallbackModels,
        endpoint: o.models.endpoint,
        ...(o.models.providers ? { providers: o.models.providers } : {}),
        redactor,
        ...(options.logger ? { logger: options.logger } : {}),
        ...(options.guard ? { guard: options.guard } : {}),
      }),
  };
}
