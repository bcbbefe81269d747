import { LlmError } from "../../src/llm/llm-error.js";
import { createSecretRedactor } from "../../src/security/redact-secrets.js";
import { useAzureIdentityRig } from "./azure-identity-rig.js";

/**
 * Azure OpenAI without a key and without any Entra ID identity, through the real @azure/identity: every credential
 * of DefaultAzureCredential's chain is unavailable (IMDS, pointed at the fake on 127.0.0.1, answers "Identity not
 * found" as on a VM without one). In a file of its own: msal-node remembers the identity source it found per process.
 */
describe("Azure OpenAI with Entra ID, and no identity anywhere", () => {
  const rig = useAzureIdentityRig({ withAppServiceIdentity: false });

  it("no credential anywhere: an auth error that says what to set, and no request reaches Azure", async () => {
    const before = rig.azure().requests.length;
    const error = await rig.ask(createSecretRedactor()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).kind).toBe("auth");
    const message = (error as LlmError).message;
    for (const what of ["AZURE_OPENAI_API_KEY", "managed identity", "AZURE_CLIENT_SECRET", "az login"])
      expect(message).toContain(what);
    expect(rig.azure().requests.length).toBe(before);
  });
});
