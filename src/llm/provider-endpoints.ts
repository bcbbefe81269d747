import type { Provider } from "./provider-of.js";

/** Where each provider is reached and with what, as read from the environment (config/env.ts). */
export interface ProviderEndpoints {
  openai: { baseUrl: string; apiKey?: string | undefined };
  anthropic: { apiKey?: string | undefined; baseUrl?: string | undefined };
  bedrock: {
    region?: string | undefined;
    baseUrl?: string | undefined;
    accessKeyId?: string | undefined;
    secretAccessKey?: string | undefined;
    sessionToken?: string | undefined;
    bearerToken?: string | undefined;
  };
  vertex: { region?: string | undefined; projectId?: string | undefined; baseUrl?: string | undefined };
  azure: {
    endpoint?: string | undefined;
    /** The resource's key; unset: an Entra ID token from @azure/identity's DefaultAzureCredential. */
    apiKey?: string | undefined;
    apiVersion?: string | undefined;
    /** The Entra ID credentials' secrets in the environment (which @azure/identity reads itself): to redact. */
    identitySecrets?: readonly string[] | undefined;
  };
}

/** The providers' values of the environment (config/env.ts's `ProviderEnv`, field for field). */
export interface ProviderEnv {
  anthropicApiKey?: string | undefined;
  anthropicBaseUrl?: string | undefined;
  awsRegion?: string | undefined;
  awsAccessKeyId?: string | undefined;
  awsSecretAccessKey?: string | undefined;
  awsSessionToken?: string | undefined;
  awsBearerTokenBedrock?: string | undefined;
  bedrockBaseUrl?: string | undefined;
  vertexRegion?: string | undefined;
  vertexProjectId?: string | undefined;
  vertexBaseUrl?: string | undefined;
  azureEndpoint?: string | undefined;
  azureApiKey?: string | undefined;
  azureIdentitySecrets?: readonly string[] | undefined;
  azureApiVersion?: string | undefined;
}

/** The endpoints of an environment's values (the OpenAI-compatible one given apart: the Action takes it as inputs). */
export function providerEndpoints(
  env: ProviderEnv,
  openai: { baseUrl: string; apiKey?: string | undefined },
): ProviderEndpoints {
  return {
    openai,
    anthropic: { apiKey: env.anthropicApiKey, baseUrl: env.anthropicBaseUrl },
    bedrock: {
      region: env.awsRegion,
      baseUrl: env.bedrockBaseUrl,
      accessKeyId: env.awsAccessKeyId,
      secretAccessKey: env.awsSecretAccessKey,
      sessionToken: env.awsSessionToken,
      bearerToken: env.awsBearerTokenBedrock,
    },
    vertex: { region: env.vertexRegion, projectId: env.vertexProjectId, baseUrl: env.vertexBaseUrl },
    azure: {
      endpoint: env.azureEndpoint,
      apiKey: env.azureApiKey,
      apiVersion: env.azureApiVersion,
      identitySecrets: env.azureIdentitySecrets,
    },
  };
}

/**
 * What is missing for a provider, as a message that says what to set; null when it can be tried. Credentials found
 * by a cloud's own chain (AWS roles, Google ADC) cannot be checked here: the first request says when they fail. Pure.
 */
export function providerProblem(provider: Provider, e: ProviderEndpoints, model: string): string | null {
  const needs = (what: string) => `Model \`${model}\` needs ${what}.`;
  switch (provider) {
    case "anthropic":
      return e.anthropic.apiKey ? null : needs("ANTHROPIC_API_KEY (an Anthropic API key, from a secret)");
    case "bedrock":
      if (!e.bedrock.region && !e.bedrock.baseUrl)
        return needs("AWS_REGION (the Bedrock region, e.g. us-east-1) and AWS credentials (a role, or the AWS_* keys)");
      if (Boolean(e.bedrock.accessKeyId) !== Boolean(e.bedrock.secretAccessKey))
        return needs("both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or neither (then a role is used)");
      return null;
    case "vertex":
      return e.vertex.region
        ? null
        : needs(
            "CLOUD_ML_REGION (the Vertex AI region, e.g. us-east5), ANTHROPIC_VERTEX_PROJECT_ID and Google credentials (ADC)",
          );
    case "azure":
      if (!e.azure.endpoint) return needs("AZURE_OPENAI_ENDPOINT (e.g. https://my-resource.openai.azure.com)");
      // Without a key, Entra ID: the credential chain can only be tried (its failure names what to set).
      if (!e.azure.apiVersion) return needs("OPENAI_API_VERSION (the Azure OpenAI api-version, e.g. 2024-10-21)");
      return null;
    case "openai":
      return null;
  }
}

/**
 * The variables holding each provider's secrets: a job process is given only those of the providers its run's models
 * use (see app/run-job-process.ts).
 */
export const PROVIDER_SECRET_VARIABLES: Readonly<Record<Provider, readonly string[]>> = {
  openai: ["OPENAI_API_KEY"],
  anthropic: ["ANTHROPIC_API_KEY"],
  bedrock: ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK"],
  vertex: [],
  // With Entra ID, the credentials' secrets (config/env-providers.ts's AZURE_IDENTITY_SECRET_VARIABLES).
  azure: [
    "AZURE_OPENAI_API_KEY",
    "AZURE_CLIENT_SECRET",
    "AZURE_CLIENT_CERTIFICATE_PASSWORD",
    "IDENTITY_HEADER",
    "MSI_SECRET",
  ],
};

/** Every secret value the endpoints hold, for the process's redactor. */
export function endpointSecrets(e: ProviderEndpoints): string[] {
  return [
    e.openai.apiKey,
    e.anthropic.apiKey,
    e.bedrock.secretAccessKey,
    e.bedrock.sessionToken,
    e.bedrock.bearerToken,
    e.azure.apiKey,
    ...(e.azure.identitySecrets ?? []),
  ].filter((s): s is string => Boolean(s));
}
