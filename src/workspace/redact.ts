/** Replace every occurrence of each secret (and its base64 form inside Basic auth headers) with `***`. */
export function redactSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret || secret.length < 4) continue;
    for (const form of [secret, Buffer.from(`x-access-token:${secret}`).toString("base64")]) {
      out = out.split(form).join("***");
    }
  }
  return out;
}
