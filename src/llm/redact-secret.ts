/**
 * Remove an API key (and anything shaped like an OpenAI/Anthropic-style key) from text that may reach a comment or a
 * log. Endpoints sometimes echo the key back in error bodies ("Incorrect API key provided: sk-…").
 */
export function redactSecret(text: string, secret?: string): string {
  let out = text;
  // Very short "keys" (e.g. "x" for local servers) would mangle ordinary words, and are not secrets anyway.
  if (secret && secret.length >= 8) out = out.split(secret).join("***");
  return out.replace(/\b(sk|key|pk|rk)-[A-Za-z0-9_*-]{8,}/g, "$1-***");
}
