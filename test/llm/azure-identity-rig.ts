import { startFakeAzureIdentity, type FakeAzureIdentity } from "../../testkit/fake-azure-identity.js";
import { startFakeOpenAiCacheServer, type FakeOpenAiCacheServer } from "../../testkit/fake-openai-cache-server.js";
import { createProviderClient } from "../../src/llm/create-provider-client.js";
import { providerEndpoints } from "../../src/llm/provider-endpoints.js";
import type { SecretRedactor } from "../../src/security/redact-secrets.js";

export const VERSION = "2024-10-21";
export const HEADER = "identity-header-0123456789abcdef";
export const TOKEN = "eyJ0eXAi.entra-test-token.0123456789abcdef";

/** Every variable @azure/identity's DefaultAzureCredential reads: cleared before each test, restored after the file. */
const VARIABLES = [
  "IDENTITY_ENDPOINT",
  "IDENTITY_HEADER",
  "AZURE_POD_IDENTITY_AUTHORITY_HOST",
  "AZURE_CLIENT_ID",
  "AZURE_TENANT_ID",
  "AZURE_CLIENT_SECRET",
  "AZURE_FEDERATED_TOKEN_FILE",
  "AZURE_TOKEN_CREDENTIALS",
  "MSI_ENDPOINT",
  "MSI_SECRET",
];

export interface AzureIdentityRig {
  identity: () => FakeAzureIdentity;
  azure: () => FakeOpenAiCacheServer;
  /** One request to the Azure deployment `gpt-4o-prod` through the provider client, redacting with `redactor`. */
  ask: (redactor: SecretRedactor) => ReturnType<ReturnType<typeof createProviderClient>["complete"]>;
}

/**
 * A fake managed-identity endpoint and a fake Azure OpenAI endpoint that accepts only its token, for a describe block.
 * The library reads its variables from the process's environment, so the rig sets them there: IMDS always points at
 * the fake (never at 169.254.169.254), and `withAppServiceIdentity` also sets an App Service's managed identity.
 */
export function useAzureIdentityRig(options: { withAppServiceIdentity: boolean }): AzureIdentityRig {
  let identity: FakeAzureIdentity;
  let azure: FakeOpenAiCacheServer;
  const saved: Record<string, string | undefined> = {};
  beforeAll(async () => {
    identity = await startFakeAzureIdentity({ header: HEADER, token: TOKEN });
    azure = await startFakeOpenAiCacheServer([], { azureToken: TOKEN, apiVersion: VERSION });
    for (const name of VARIABLES) saved[name] = process.env[name];
  });
  beforeEach(() => {
    for (const name of VARIABLES) delete process.env[name];
    process.env.AZURE_POD_IDENTITY_AUTHORITY_HOST = identity.imdsHost;
    if (options.withAppServiceIdentity) {
      process.env.IDENTITY_ENDPOINT = identity.endpoint;
      process.env.IDENTITY_HEADER = HEADER;
    }
  });
  afterAll(async () => {
    for (const name of VARIABLES)
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    await identity?.close();
    await azure?.close();
  });
  return {
    identity: () => identity,
    azure: () => azure,
    ask: (redactor) =>
      createProviderClient({
        redactor,
        endpoints: providerEndpoints(
          { azureEndpoint: azure.url, azureApiVersion: VERSION },
          { baseUrl: "http://127.0.0.1:9/v1" },
        ),
        sleep: async () => undefined,
      }).complete({ model: "azure/gpt-4o-prod", messages: [{ role: "user", content: "say hi" }], maxRetries: 0 }),
  };
}
