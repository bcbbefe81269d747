import { LlmError } from "./llm-error.js";

/** The Entra ID scope of Azure OpenAI (Azure AI services), as Microsoft documents it for bearer tokens. */
export const AZURE_OPENAI_SCOPE = "https://cognitiveservices.azure.com/.default";

/** What to set when no Entra ID credential answers: the key, or one of the identities DefaultAzureCredential finds. */
export const NO_AZURE_CREDENTIAL =
  "No credential for Azure OpenAI: AZURE_OPENAI_API_KEY is unset and no Entra ID identity was found. Set " +
  "AZURE_OPENAI_API_KEY (the resource's key, from a secret), or give the bot an identity that holds the " +
  "'Cognitive Services OpenAI User' role on the resource: a managed identity (on Azure; AZURE_CLIENT_ID picks a " +
  "user-assigned one), a service principal (AZURE_TENANT_ID, AZURE_CLIENT_ID and AZURE_CLIENT_SECRET, or " +
  "AZURE_FEDERATED_TOKEN_FILE for workload identity), or an `az login` session (azure/login in a workflow).";

/** The parts of @azure/identity used here (loaded at the first Azure call without a key). */
interface AzureIdentityModule {
  DefaultAzureCredential: new () => unknown;
  getBearerTokenProvider: (credential: never, scope: string) => () => Promise<string>;
}

export interface AzureTokenOptions {
  /** Each token issued, so the process's redactor can keep it out of every text (logs, comments, transcripts). */
  onToken?: (token: string) => void;
  /** Applied to the identity library's own failure text before it is quoted in a message. */
  redact?: (text: string) => string;
  /** Injected in tests; default `import("@azure/identity")`. */
  load?: () => Promise<AzureIdentityModule>;
}

/**
 * The bearer-token provider of an Azure OpenAI client without a key (the `azureADTokenProvider` of openai's
 * AzureOpenAI): @azure/identity's DefaultAzureCredential — environment service principal, workload identity, managed
 * identity, then the Azure CLI and the other developer tools, narrowed by AZURE_TOKEN_CREDENTIALS when it is set —
 * for the Azure OpenAI scope, tokens cached and refreshed by the library. A failure becomes an `auth` LlmError that
 * says what to set.
 */
export async function azureTokenProvider(o: AzureTokenOptions = {}): Promise<() => Promise<string>> {
  const identity = await (o.load ?? (() => import("@azure/identity") as Promise<AzureIdentityModule>))();
  let credential: unknown;
  try {
    credential = new identity.DefaultAzureCredential();
  } catch (error) {
    // The constructor only fails on a bad AZURE_TOKEN_CREDENTIALS.
    throw new LlmError("auth", `Azure OpenAI's credentials: ${reason(error, o.redact)}`);
  }
  const provider = identity.getBearerTokenProvider(credential as never, AZURE_OPENAI_SCOPE);
  return async () => {
    let token: string;
    try {
      token = await provider();
    } catch (error) {
      throw new LlmError("auth", azureCredentialMessage(error, o.redact));
    }
    o.onToken?.(token);
    return token;
  };
}

/**
 * The message of a failed token request: when no credential of the chain was available, what to set; when one was
 * and Entra ID (or the managed-identity endpoint) refused it, its reason and what to check. Pure.
 */
export function azureCredentialMessage(error: unknown, redact?: (text: string) => string): string {
  const name = error instanceof Error ? error.name : "";
  if (name === "CredentialUnavailableError") return NO_AZURE_CREDENTIAL;
  if (name === "AggregateAuthenticationError") {
    // Each credential of the chain says why it gave none: the one that was configured (say, a managed identity
    // whose endpoint refused) tells the operator more than the list of what could be set.
    const errors = (error as { errors?: unknown }).errors;
    const said = Array.isArray(errors) ? errors.map((e) => reason(e, redact)).filter(Boolean) : [];
    return said.length
      ? `${NO_AZURE_CREDENTIAL} The credentials tried said: ${said.join(" · ").slice(0, 900)}`
      : NO_AZURE_CREDENTIAL;
  }
  return (
    `Entra ID issued no token for Azure OpenAI (${reason(error, redact)}). Check that the identity exists and holds ` +
    "the 'Cognitive Services OpenAI User' role on the resource, or set AZURE_OPENAI_API_KEY instead."
  );
}

/** The first line of a library's failure, redacted and bounded (its messages run to many lines of advice). */
function reason(error: unknown, redact: (text: string) => string = (t) => t): string {
  const text = error instanceof Error ? error.message : String(error);
  return redact(text.split("\n")[0]!.trim()).slice(0, 300);
}
