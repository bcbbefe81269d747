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
 * Azure OpenAI without a key, through the real @azure/identity: DefaultAzureCredential finds the managed identity of
 * an App Service (IDENTITY_ENDPOINT/IDENTITY_HEADER, the fake on 127.0.0.1), and the fake Azure endpoint accepts only
 * that token as `Authorization: Bearer`. The library reads these variables from the process's environment, so the
 * test sets them there (and points IMDS at the fake, never at 169.254.169.254).
 */
describe("Azure OpenAI with Entra ID (no AZURE_OPENAI_API_KEY)", () => {
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
    process.env.IDENTITY_ENDPOINT = identity.endpoint;
    process.env.IDENTITY_HEADER = HEADER;
  });
  afterAll(async () => {
    for (const name of VARIABLES)
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    await identity?.close();
    await azure?.close();
  });

  // The driver's redactor: each token minted for Azure is registered with this one, and with no other.
  const redactor = createSecretRedactor();
  const client = () =>
    createProviderClient({
      redactor,
      endpoints: providerEndpoints(
        { azureEndpoint: azure.url, azureApiVersion: VERSION },
        { baseUrl: "http://127.0.0.1:9/v1" },
      ),
      sleep: async () => undefined,
    });
  const ask = () =>
    client().complete({ model: "azure/gpt-4o-prod", messages: [{ role: "user", content: "say hi" }], maxRetries: 0 });

  it("the identity endpoint refuses: what to set and what the managed identity said, its header never quoted", async () => {
    identity.refuse(true);
    const before = azure.requests.length;
    const error = (await ask()
      .catch((e: unknown) => e)
      .finally(() => identity.refuse(false))) as LlmError;
    expect(error).toBeInstanceOf(LlmError);
    expect(error.kind).toBe("auth");
    expect(error.message).toContain("AZURE_OPENAI_API_KEY");
    expect(error.message).toContain("ManagedIdentityCredential");
    expect(error.message).not.toContain(HEADER);
    expect(identity.requests.at(-1)!.authorised).toBe(false);
    expect(azure.requests.length).toBe(before);
  });
  // After the refusal: msal-node keeps managed-identity tokens (and the identity source it found) process-wide, so
  // the case without any identity has a file of its own (azure-entra-id-none.test.ts).
  it("a managed identity's token authenticates the call; the key header is absent and the token is redacted", async () => {
    azure.push("hi");
    const before = azure.requests.length;
    const result = await ask();
    expect(result.text).toBe("hi");
    const [request] = azure.requests.slice(before);
    expect(request!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request!.headers["api-key"]).toBeUndefined();
    expect(request!.body.model).toBe("gpt-4o-prod");
    // The token was asked for Azure OpenAI's resource, with the endpoint's secret header.
    expect(identity.requests.at(-1)).toEqual({
      resource: "https://cognitiveservices.azure.com",
      apiVersion: "2019-08-01",
      authorised: true,
    });
    // The bare token (no header around it for the shapes to catch) is known to the driver's redactor, and only to it.
    expect(redactor.redact(`token: ${TOKEN}`)).toBe("token: [REDACTED]");
    expect(createSecretRedactor().redact(`token: ${TOKEN}`)).toContain(TOKEN);
  });
});
