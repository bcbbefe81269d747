/** The bot's HTTP Basic header for an installation token (GitHub accepts any user name; this one is conventional). */
export function basicAuthHeader(token: string): string {
  return `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
}

/**
 * Environment that makes one git command authenticate with `token` through an HTTP header passed as
 * command-scoped config (`GIT_CONFIG_COUNT`): the token is never in a URL, in argv or in `.git/config`
 * (docs/architecture.md#stack). Prompts are off so a bad token fails fast instead of waiting for a terminal.
 * `gitAuthEnv("t").GIT_CONFIG_KEY_1 → "http.extraHeader"`
 */
export function gitAuthEnv(token: string | undefined): Record<string, string> {
  const env: Record<string, string> = { GIT_TERMINAL_PROMPT: "0" };
  if (!token) return env;
  return {
    ...env,
    GIT_CONFIG_COUNT: "3",
    // An empty value resets the multi-valued list, so a header from the user's own config is not sent twice.
    GIT_CONFIG_KEY_0: "http.extraHeader",
    GIT_CONFIG_VALUE_0: "",
    GIT_CONFIG_KEY_1: "http.extraHeader",
    GIT_CONFIG_VALUE_1: basicAuthHeader(token),
    // Our header is the credential: no helper may be asked for (or store) another one.
    GIT_CONFIG_KEY_2: "credential.helper",
    GIT_CONFIG_VALUE_2: "",
  };
}
