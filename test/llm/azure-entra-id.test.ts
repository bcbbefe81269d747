import { LlmError } from "../../src/llm/llm-error.js";
import { createSecretRedactor } from "../../src/security/redact-secrets.js";
import { HEADER, TOKEN, useAzureIdentityRig } from "./azure-identity-rig.js";

/**
 * Azure OpenAI without a key, through the real @azure/identity: DefaultAzureCredential finds the managed identity of
 * an App Service (IDENTITY_ENDPOINT/IDENTITY_HEADER, the fake on 127.0.0.1), and the fake Azure endpoint accepts only
 * that token as `Authorization: Bearer`.
 */
describe("Azure OpenAI with Entra ID (no AZURE_OPENAI_API_KEY)", () => {
  const rig = useAzureIdentityRig({ withAppServiceIdentity: true });

  // The driver's redactor: each token minted for Azure is registered with this one, and with no other.
  const redactor = createSecretRedactor();
  const ask = () => rig.ask(redactor);

  it("the identity endpoint refuses: what to set and what the managed identity said, its header never quoted", async () => {
    rig.identity().refuse(true);
    const before = rig.azure().requests.length;
    const error = (await ask()
      .catch((e: unknown) => e)
      .finally(() => rig.identity().refuse(false))) as LlmError;
    expect(error).toBeInstanceOf(LlmError);
    expect(error.kind).toBe("auth");
    expect(error.message).toContain("AZURE_OPENAI_API_KEY");
    expect(error.message).toContain("ManagedIdentityCredential");
    expect(error.message).not.toContain(HEADER);
    expect(rig.identity().requests.at(-1)!.authorised).toBe(false);
    expect(rig.azure().requests.length).toBe(before);
  });
  // After the refusal: msal-node keeps managed-identity tokens (and the identity source it found) process-wide, so
  // the case without any identity has a file of its own (azure-entra-id-none.test.ts).
  it("a managed identity's token authenticates the call; the key header is absent and the token is redacted", async () => {
    rig.azure().push("hi");
    const before = rig.azure().requests.length;
    const result = await ask();
    expect(result.text).toBe("hi");
    const [request] = rig.azure().requests.slice(before);
    expect(request!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(request!.headers["api-key"]).toBeUndefined();
    expect(request!.body.model).toBe("gpt-4o-prod");
    // The token was asked for Azure OpenAI's resource, with the endpoint's secret header.
    expect(rig.identity().requests.at(-1)).toEqual({
      resource: "https://cognitiveservices.azure.com",
      apiVersion: "2019-08-01",
      authorised: true,
    });
    // The bare token (no header around it for the shapes to catch) is known to the driver's redactor, and only to it.
    expect(redactor.redact(`token: ${TOKEN}`)).toBe("token: [REDACTED]");
    expect(createSecretRedactor().redact(`token: ${TOKEN}`)).toContain(TOKEN);
  });
});
