import { createSecretRedactor, type SecretRedactor } from "./redact-secrets.js";

/**
 * The process's one redactor. The app registers its secrets here at start (model key, webhook secret, App key) and
 * each installation token as it is minted; the choke points (GitHub writes, the model client, git commits, the
 * logger) all redact through it, so a secret registered once is kept out of every one of them.
 */
export const processRedactor: SecretRedactor = createSecretRedactor();
