/**
 * Remove secrets from text we show (errors, logs, comments): each secret as written, its base64 form inside an
 * `x-access-token:` Basic header, and any `Authorization:` header value git or curl echoed back (GIT_TRACE, -v).
 * `redactSecrets("fatal: ghs_abc", ["ghs_abc"]) → "fatal: ***"`
 */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  // Longest first, so a secret that contains another one is removed whole.
  const forms = secrets
    .filter((s): s is string => typeof s === "string" && s.length >= 4)
    .flatMap((s) => [s, Buffer.from(`x-access-token:${s}`).toString("base64"), encodeURIComponent(s)])
    .sort((a, b) => b.length - a.length);
  for (const form of forms) out = out.split(form).join("***");
  return out.replace(/(authorization:\s*(?:basic|bearer|token)\s+)[^\s"']+/gi, "$1***");
}
