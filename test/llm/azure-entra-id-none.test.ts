import { startFakeAzureIdentity, type FakeAzureIdentity } from "../../testkit/fake-azure-identity.js";
import { startFakeOpenAiCacheServer, type FakeOpenAiCacheServer } from "../../testkit/fake-openai-cache-server.js";
import { createProviderClient } from "../../src/llm/create-provider-client.js";
import { LlmError } from "../../src/llm/llm-error.js";
import { providerEndpoints } from "../../src/llm/provider-endpoints.js";
import { createSecretRedactor } from "../../src/security/redact-secrets.js";

const VERSION = "2024-10-21";
const HEADER = "identity-header-0123456789abcdef";
const TOKEN = "eyJ0eXAi.entra-test-token.0123456789abcdef";

/**
 * Azure OpenAI without a key and without any Entra ID identity, through the real @azure/identity: every credential
 * of DefaultAzureCredential's chain is unavailable (IMDS, pointed at the fake on 127.0.0.1, answers "Identity not
 * found" as on a VM without one). In a file of its own: msal-node remembers the identity source it found per process.
 */
describe("Azure OpenAI with Entra ID, and no identity anywhere", () => {
  let identity: FakeAzureIdentity;
  let azure: FakeOpenAiCacheServer;
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
  const saved: Record<string, string | undefined> = {};

  beforeAll(async () => {
    identity = await startFakeAzureIdentity({ header: HEADER, token: TOKEN });
    azure = await startFakeOpenAiCacheServer([], { azureToken: TOKEN, apiVersion: VERSION });
    for (const name of VARIABLES) saved[name] = process.env[name];
  });
  beforeEach(() => {
    for (const name of VARIABLES) delete process.env[name];
    process.env.AZURE_POD_IDENTITY_AUTHORITY_HOST = identity.imdsHost;
  });
  afterAll(async () => {
    for (const name of VARIABLES)
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    await identity?.close();
    await azure?.close();
  });

  const client = () =>
    createProviderClient({
      redactor: createSecretRedactor(),
      endpoints: providerEndpoints(
        { azureEndpoint: azure.url, azureApiVersion: VERSION },
        { baseUrl: "http://127.0.0.1:9/v1" },
      ),
      sleep: async () => undefined,
    });
  const ask = () =>
    client().complete({ model: "azure/gpt-4o-prod", messages: [{ role: "user", content: "say hi" }], maxRetries: 0 });

  it("no credential anywhere: an auth error that says what to set, and no request reaches Azure", async () => {
    const before = azure.requests.length;
    const error = await ask().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).kind).toBe("auth");
    const message = (error as LlmError).message;
    for (const what of ["AZURE_OPENAI_API_KEY", "managed identity", "AZURE_CLIENT_SECRET", "az login"])
      expect(message).toContain(what);
    expect(azure.requests.length).toBe(before);
  });
});
