import { AzureOpenAI } from "openai";
import type { SecretRedactor } from "../security/redact-secrets.js";
import { createLlmClient, type LlmClientOptions } from "./create-llm-client.js";
import { azureTokenProvider } from "./azure-token.js";
import { LlmError } from "./llm-error.js";
import { DEFAULT_MODEL_SETTINGS, modelSettings, type ModelSettingsTable } from "./model-settings.js";
import { costUsd, mergePrices } from "./price-table.js";
import { providerProblem, type ProviderEndpoints } from "./provider-endpoints.js";
import { claudeModelName, providerOf, type Provider } from "./provider-of.js";
import type { CompletionRequest, CompletionResult, LlmClient } from "./types.js";
import { defaultSleep } from "./with-retries.js";

export type ProviderClientOptions = Omit<
  LlmClientOptions,
  "baseUrl" | "apiKey" | "client" | "keyName" | "endpointName" | "redact"
> & {
  endpoints: ProviderEndpoints;
  /**
   * The driver's redactor: every message is passed through it before it is sent, and each Entra ID token minted
   * for Azure is registered with it (so no log line, comment or later request carries one).
   */
  redactor: SecretRedactor;
  /** For the output cap Claude requires when a call sets none (default: the built-in table). */
  settings?: ModelSettingsTable;
};

/**
 * One {@link LlmClient} for every provider, chosen per call by the model's name (see {@link providerOf}):
 * `anthropic/…`, `bedrock/…`, `vertex/…` and `azure/…` through their official SDKs, anything else through the
 * OpenAI-compatible endpoint. So a fallback chain may cross providers. Each provider's client is made at its first
 * call (a run that uses only one never loads the others' SDKs); a provider whose variables are missing fails that
 * call with a message naming them. The answer names the model as it was asked for.
 *
 * @example createProviderClient({ endpoints }).complete({ model: "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", messages })
 */
export function createProviderClient(o: ProviderClientOptions): LlmClient {
  const clients = new Map<Provider, Promise<LlmClient>>();
  const prices = mergePrices(o.priceTable);
  const table = o.settings ?? DEFAULT_MODEL_SETTINGS;
  const clientFor = (provider: Provider): Promise<LlmClient> => {
    let client = clients.get(provider);
    if (!client) {
      client = makeClient(provider, o, table, prices);
      clients.set(provider, client);
    }
    return client;
  };
  return {
    async complete(req: CompletionRequest): Promise<CompletionResult> {
      const { provider, model } = providerOf(req.model);
      const problem = providerProblem(provider, o.endpoints, req.model);
      if (problem) throw new LlmError("auth", problem);
      const result = await (await clientFor(provider)).complete({ ...req, model });
      return {
        ...result,
        model: req.model,
        costUsd: costUsd(req.model, result.usage, prices) ?? result.costUsd,
      };
    },
  };
}

async function makeClient(
  provider: Provider,
  o: ProviderClientOptions,
  table: ModelSettingsTable,
  prices: ReturnType<typeof mergePrices>,
): Promise<LlmClient> {
  const e = o.endpoints;
  const timeoutMs = o.timeoutMs ?? 600_000;
  if (provider === "openai")
    return createLlmClient({
      ...o,
      redact: o.redactor.redact,
      baseUrl: e.openai.baseUrl,
      apiKey: e.openai.apiKey ?? "not-needed",
    });
  if (provider === "azure") return azureClient(o, e, timeoutMs);
  // Claude, direct or on a cloud: one client over the Messages API, its SDK loaded now (only runs that use it pay).
  const { createAnthropicClient } = await import("./anthropic-client.js");
  const { sdk, baseUrl, keyName, endpointName, apiKey } = await claudeSdk(provider, e, timeoutMs);
  const redact = o.redactor.redact;
  return createAnthropicClient({
    sdk,
    baseUrl,
    keyName,
    endpointName,
    ...(apiKey ? { apiKey } : {}),
    timeoutMs,
    redact,
    maxOutput: (model) => modelSettings(claudeModelName(model), table).settings.maxOutput,
    maxContinuations: o.allowPrefill ? (o.maxContinuations ?? 3) : 0,
    cost: (model, usage) => costUsd(model, usage, prices) ?? costUsd(claudeModelName(model), usage, prices),
    policy: {
      maxRetries: o.maxRetries ?? 4,
      maxRetryAfterMs: o.maxRetryAfterMs ?? 30_000,
      baseDelayMs: o.baseDelayMs ?? 500,
      maxDelayMs: o.maxDelayMs ?? 30_000,
      random: o.random ?? Math.random,
      sleep: o.sleep ?? defaultSleep,
      ...(o.logger ? { logger: o.logger } : {}),
    },
  });
}

/**
 * Azure OpenAI through openai's AzureOpenAI: with the resource's key when AZURE_OPENAI_API_KEY is set, else with
 * Entra ID tokens from @azure/identity (see azure-token.ts), each added to the driver's redactor.
 */
async function azureClient(o: ProviderClientOptions, e: ProviderEndpoints, timeoutMs: number): Promise<LlmClient> {
  const a = e.azure;
  const redactor = o.redactor;
  const auth = a.apiKey
    ? { apiKey: a.apiKey }
    : {
        azureADTokenProvider: await azureTokenProvider({
          onToken: (token) => redactor.add(token),
          redact: redactor.redact,
        }),
      };
  // The resource's `/openai` root as the base URL: with `endpoint`, the SDK would also take OPENAI_BASE_URL from the
  // environment (set for the OpenAI-compatible models) and refuse the pair.
  const client = new AzureOpenAI({
    baseURL: `${a.endpoint!.replace(/\/+$/, "")}/openai`,
    ...auth,
    apiVersion: a.apiVersion!,
    maxRetries: 0,
    timeout: timeoutMs + 1000,
  });
  return createLlmClient({
    ...o,
    redact: redactor.redact,
    baseUrl: a.endpoint!,
    apiKey: a.apiKey ?? "",
    client,
    keyName: a.apiKey
      ? "AZURE_OPENAI_API_KEY"
      : "the Entra ID identity's access (the 'Cognitive Services OpenAI User' role on the resource)",
    endpointName: "AZURE_OPENAI_ENDPOINT (and that the deployment exists)",
  });
}

/**
 * The SDK client of a Claude provider, with every setting passed explicitly (nothing read from the process's
 * environment by the SDK, except the cloud credential chains: AWS roles and profiles, Google ADC), its own retries
 * off (ours run).
 */
async function claudeSdk(provider: Provider, e: ProviderEndpoints, timeoutMs: number) {
  const common = { maxRetries: 0, timeout: timeoutMs + 1000 };
  if (provider === "anthropic") {
    const { default: Anthropic } = await import("@anthropic-ai/sdk");
    const baseUrl = e.anthropic.baseUrl ?? "https://api.anthropic.com";
    const apiKey = e.anthropic.apiKey!;
    return {
      sdk: new Anthropic({ ...common, apiKey, authToken: null, baseURL: baseUrl }),
      baseUrl,
      apiKey,
      keyName: "ANTHROPIC_API_KEY",
      endpointName: "ANTHROPIC_BASE_URL",
    };
  }
  if (provider === "bedrock") {
    const { AnthropicBedrock } = await import("@anthropic-ai/bedrock-sdk");
    const b = e.bedrock;
    const region = b.region ?? "us-east-1";
    const baseUrl = b.baseUrl ?? `https://bedrock-runtime.${region}.amazonaws.com`;
    const options = { ...common, awsRegion: region, baseURL: baseUrl, apiKey: b.bearerToken ?? null };
    // Keys given in the environment are used as they are; without them the AWS credential chain finds a role.
    const sdk =
      b.accessKeyId && b.secretAccessKey
        ? new AnthropicBedrock({
            ...options,
            awsAccessKey: b.accessKeyId,
            awsSecretKey: b.secretAccessKey,
            awsSessionToken: b.sessionToken ?? null,
          })
        : new AnthropicBedrock(options);
    return {
      sdk,
      baseUrl,
      apiKey: b.bearerToken ?? b.secretAccessKey,
      keyName: "the AWS credentials (a role, or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY) and AWS_REGION",
      endpointName: "AWS_REGION (or ANTHROPIC_BEDROCK_BASE_URL)",
    };
  }
  const [{ AnthropicVertex }, { GoogleAuth }] = await Promise.all([
    import("@anthropic-ai/vertex-sdk"),
    import("google-auth-library"),
  ]);
  const v = e.vertex;
  const region = v.region!;
  // With the project named, Google's auth library does not look it up itself — which runs `gcloud` where it is
  // installed (seconds, and a process this one must not start).
  const googleAuth = new GoogleAuth({
    scopes: "https://www.googleapis.com/auth/cloud-platform",
    ...(v.projectId ? { projectId: v.projectId } : {}),
  });
  return {
    sdk: new AnthropicVertex({
      ...common,
      region,
      projectId: v.projectId ?? null,
      googleAuth,
      ...(v.baseUrl ? { baseURL: v.baseUrl } : {}),
    }),
    baseUrl: v.baseUrl ?? `https://${region}-aiplatform.googleapis.com/v1`,
    apiKey: undefined,
    keyName:
      "the Google credentials (GOOGLE_APPLICATION_CREDENTIALS or workload identity), CLOUD_ML_REGION and ANTHROPIC_VERTEX_PROJECT_ID",
    endpointName: "CLOUD_ML_REGION (or ANTHROPIC_VERTEX_BASE_URL)",
  };
}
