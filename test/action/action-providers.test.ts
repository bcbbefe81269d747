import { readActionEnv } from "../../src/config/action-env.js";
import { startFakeClaudeServer, type FakeClaudeServer } from "../../testkit/fake-claude-server.js";
import { startFakeOpenAiCacheServer, type FakeOpenAiCacheServer } from "../../testkit/fake-openai-cache-server.js";
import { createProviderClient } from "../../src/llm/create-provider-client.js";
import { endpointSecrets, providerEndpoints } from "../../src/llm/provider-endpoints.js";
import { createSecretRedactor } from "../../src/security/redact-secrets.js";

/** What a runner hands the action's step, as action.yml passes the inputs (underscore spelling). */
const runner = {
  GITHUB_EVENT_NAME: "issue_comment",
  GITHUB_EVENT_PATH: "/tmp/event.json",
  GITHUB_REPOSITORY: "acme/widgets",
  GITHUB_WORKSPACE: "/home/runner/work/widgets/widgets",
  INPUT_GITHUB_TOKEN: "ghs_token",
};

/** What aws-actions/configure-aws-credentials exports for the job after assuming the OIDC role. */
const AWS_ROLE = {
  AWS_REGION: "eu-west-3",
  AWS_DEFAULT_REGION: "eu-west-3",
  AWS_ACCESS_KEY_ID: "ASIAOIDCROLEKEY12345",
  AWS_SECRET_ACCESS_KEY: "oidc/role+secret/key0123456789abcdefghij",
  AWS_SESSION_TOKEN: "oidc-role-session-token-0123456789",
};

const endpointsOf = (source: Record<string, string>) => {
  const env = readActionEnv({ ...runner, ...source });
  return {
    env,
    endpoints: providerEndpoints(env.runEnv, { baseUrl: env.inputs.openaiBaseUrl, apiKey: env.inputs.openaiApiKey }),
  };
};

/**
 * The Action's provider settings, from its inputs and from what the cloud login actions before it export, reach the
 * real provider clients: each call below is made by createProviderClient against a wire-level fake that checks the
 * credentials (Bedrock's SigV4 signature with the role's keys, Anthropic's key, Azure's key and api-version).
 */
describe("the Action's provider inputs and the OIDC actions' variables reach the provider clients", () => {
  let claude: FakeClaudeServer;
  let azure: FakeOpenAiCacheServer;
  beforeAll(async () => {
    claude = await startFakeClaudeServer([], {
      apiKey: "sk-ant-action-0123456789",
      aws: {
        accessKeyId: AWS_ROLE.AWS_ACCESS_KEY_ID,
        secretAccessKey: AWS_ROLE.AWS_SECRET_ACCESS_KEY,
        region: "eu-west-3",
      },
    });
    azure = await startFakeOpenAiCacheServer([], { azureKey: "azure-action-key-0123456789", apiVersion: "2024-10-21" });
  });
  afterAll(async () => {
    await claude?.close();
    await azure?.close();
  });
  const ask = (endpoints: ReturnType<typeof endpointsOf>["endpoints"], model: string) =>
    createProviderClient({ endpoints, redactor: createSecretRedactor(), sleep: async () => undefined }).complete({
      model,
      messages: [{ role: "user", content: "hi" }],
      maxRetries: 0,
    });

  it("Bedrock: configure-aws-credentials' role keys and region sign the request; no OpenAI key is asked for", async () => {
    const { env, endpoints } = endpointsOf({
      ...AWS_ROLE,
      INPUT_MODEL: "bedrock/eu.anthropic.claude-sonnet-4-5-20250929-v1:0",
      ANTHROPIC_BEDROCK_BASE_URL: claude.url,
    });
    expect(env.inputs.openaiApiKey).toBeUndefined();
    claude.push("from bedrock");
    const result = await ask(endpoints, env.inputs.model);
    expect(result.text).toBe("from bedrock");
    expect(claude.requests.at(-1)!.protocol).toBe("bedrock");
    // The role's secrets are registered for redaction.
    expect(endpointSecrets(endpoints)).toEqual(
      expect.arrayContaining([AWS_ROLE.AWS_SECRET_ACCESS_KEY, AWS_ROLE.AWS_SESSION_TOKEN]),
    );
  });

  it("the aws-region input wins over the runner's AWS_REGION", () => {
    const { endpoints } = endpointsOf({ ...AWS_ROLE, INPUT_AWS_REGION: "us-east-1", INPUT_MODEL: "bedrock/x" });
    expect(endpoints.bedrock.region).toBe("us-east-1");
  });

  it("Anthropic: the anthropic-api-key input", async () => {
    const { env, endpoints } = endpointsOf({
      INPUT_ANTHROPIC_API_KEY: "sk-ant-action-0123456789",
      INPUT_MODEL: "anthropic/claude-sonnet-4-6",
      ANTHROPIC_BASE_URL: claude.url,
    });
    claude.push("from anthropic");
    expect((await ask(endpoints, env.inputs.model)).text).toBe("from anthropic");
    expect(claude.requests.at(-1)!.protocol).toBe("anthropic");
  });

  it("Vertex: the vertex-region and vertex-project-id inputs", () => {
    const { endpoints } = endpointsOf({
      INPUT_VERTEX_REGION: "us-east5",
      INPUT_VERTEX_PROJECT_ID: "acme-ai",
      INPUT_MODEL: "vertex/claude-sonnet-4-5@20250929",
    });
    expect(endpoints.vertex).toMatchObject({ region: "us-east5", projectId: "acme-ai" });
  });

  it("Azure: the endpoint, key and api-version inputs; without a key the call is not refused up front (Entra ID)", async () => {
    const { env, endpoints } = endpointsOf({
      INPUT_AZURE_OPENAI_ENDPOINT: azure.url,
      INPUT_AZURE_OPENAI_API_KEY: "azure-action-key-0123456789",
      INPUT_OPENAI_API_VERSION: "2024-10-21",
      INPUT_MODEL: "azure/gpt-4o-prod",
    });
    azure.push("from azure");
    expect((await ask(endpoints, env.inputs.model)).text).toBe("from azure");
    expect(azure.requests.at(-1)!.headers["api-key"]).toBe("azure-action-key-0123456789");
    // With azure/login (or a managed identity) and no key input, the Entra ID secrets the runner holds are redacted.
    const entra = endpointsOf({
      INPUT_AZURE_OPENAI_ENDPOINT: azure.url,
      INPUT_OPENAI_API_VERSION: "2024-10-21",
      INPUT_MODEL: "azure/gpt-4o-prod",
      AZURE_CLIENT_SECRET: "sp-secret-0123456789",
    });
    expect(entra.endpoints.azure.apiKey).toBeUndefined();
    expect(endpointSecrets(entra.endpoints)).toContain("sp-secret-0123456789");
  });
});
