import { allSet, firstSet, httpUrl, text, variable } from "./env-schemas.js";

/**
 * The secrets of the Entra ID credentials @azure/identity finds for `azure/…` models when AZURE_OPENAI_API_KEY is
 * unset: a service principal's secret or certificate password, and the managed-identity endpoint's header (App
 * Service, Functions, Container Apps; MSI_SECRET on older hosts). The library reads them (and the non-secret rest:
 * AZURE_CLIENT_ID, AZURE_TENANT_ID, AZURE_FEDERATED_TOKEN_FILE, IDENTITY_ENDPOINT…) from the environment itself.
 */
export const AZURE_IDENTITY_SECRET_VARIABLES = [
  "AZURE_CLIENT_SECRET",
  "AZURE_CLIENT_CERTIFICATE_PASSWORD",
  "IDENTITY_HEADER",
  "MSI_SECRET",
] as const;

/**
 * The native providers' variables, chosen by the model's prefix (`anthropic/`, `bedrock/`, `vertex/`, `azure/`; see
 * llm/provider-of.ts): each the one its cloud's own tools read. Keys are secrets: never logged or echoed. Part of the
 * one table env.ts reads.
 */
export const PROVIDER_VARIABLES = {
  anthropicApiKey: variable("ANTHROPIC_API_KEY", text()),
  /** Anthropic's API root (default https://api.anthropic.com), e.g. a company gateway. */
  anthropicBaseUrl: variable("ANTHROPIC_BASE_URL", httpUrl("a URL like https://api.anthropic.com").optional()),
  /** Bedrock's region: AWS_REGION, else AWS_DEFAULT_REGION (both set by aws-actions/configure-aws-credentials). */
  awsRegion: variable(["AWS_REGION", "AWS_DEFAULT_REGION"], firstSet()),
  /**
   * Static AWS keys (e.g. from an OIDC role assumed by the workflow). Unset: the AWS credential chain finds them
   * (profile, web identity/IRSA, container or instance role).
   */
  awsAccessKeyId: variable("AWS_ACCESS_KEY_ID", text()),
  awsSecretAccessKey: variable("AWS_SECRET_ACCESS_KEY", text()),
  awsSessionToken: variable("AWS_SESSION_TOKEN", text()),
  /** A Bedrock API key (bearer token) instead of signed requests. */
  awsBearerTokenBedrock: variable("AWS_BEARER_TOKEN_BEDROCK", text()),
  /** Bedrock runtime's root (default https://bedrock-runtime.<region>.amazonaws.com), e.g. a VPC endpoint. */
  bedrockBaseUrl: variable(
    "ANTHROPIC_BEDROCK_BASE_URL",
    httpUrl("a URL like https://bedrock-runtime.us-east-1.amazonaws.com").optional(),
  ),
  /** Vertex AI's region for Claude (`us-east5`, `europe-west1`, `global`…). */
  vertexRegion: variable("CLOUD_ML_REGION", text()),
  /** The Google Cloud project billed for Vertex (unset: the one of the Application Default Credentials). */
  vertexProjectId: variable("ANTHROPIC_VERTEX_PROJECT_ID", text()),
  /** Vertex AI's API root (default https://<region>-aiplatform.googleapis.com/v1). */
  vertexBaseUrl: variable(
    "ANTHROPIC_VERTEX_BASE_URL",
    httpUrl("a URL like https://us-east5-aiplatform.googleapis.com/v1").optional(),
  ),
  /** The Azure OpenAI resource, e.g. https://my-resource.openai.azure.com. */
  azureEndpoint: variable(
    "AZURE_OPENAI_ENDPOINT",
    httpUrl("a URL like https://my-resource.openai.azure.com").optional(),
  ),
  /** The Azure OpenAI resource's key. A secret. */
  azureApiKey: variable("AZURE_OPENAI_API_KEY", text()),
  /** The Entra ID secrets present (see {@link AZURE_IDENTITY_SECRET_VARIABLES}): only to redact and withhold them. */
  azureIdentitySecrets: variable(AZURE_IDENTITY_SECRET_VARIABLES, allSet()),
  /** Azure OpenAI's `api-version` (e.g. 2024-10-21). */
  azureApiVersion: variable("OPENAI_API_VERSION", text()),
};
