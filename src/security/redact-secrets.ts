/**
 * One redactor for everything that leaves the process (comments, Check Runs, PR bodies, commit messages, model
 * requests, log lines). It knows two things:
 * - exact secret values the process holds (model key, webhook secret, each line of the App's private key, each
 *   installation token as it is minted), registered with {@link SecretRedactor.add};
 * - well-known secret shapes, so a secret we were never told about (one a repository's test prints, say) is caught too.
 *
 * Limits, by design: a value is found only as written (not base64-, URL- or JSON-escaped, nor split by inserted
 * characters); a multi-line value (a PEM key) is matched line by line, so any one of its lines is caught wherever it
 * appears; values shorter than {@link MIN_SECRET_LENGTH} are not registered (they would mangle ordinary words).
 */
export interface SecretRedactor {
  /** `text` with every known secret value and secret shape replaced by {@link REDACTED}. */
  redact(text: string): string;
  /** Register a secret value learnt at run time (a multi-line value is registered line by line). */
  add(secret: string | undefined | null): void;
}

export const REDACTED = "[REDACTED]";
export const MIN_SECRET_LENGTH = 8;

/**
 * High-signal secret shapes (the ones secretlint's recommended preset and GitHub's secret scanning agree on for the
 * credentials this app handles). Each replaces the whole match except a kept prefix group `$1` where one exists.
 */
const SHAPES: readonly { name: string; pattern: RegExp; keep?: true }[] = [
  // A PEM private key block; a block cut off before its END line is redacted to the end of the text.
  {
    name: "pem",
    pattern:
      /-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY( BLOCK)?-----|$)/g,
  },
  // GitHub tokens: personal (ghp_), OAuth (gho_), user-to-server (ghu_), installation (ghs_), refresh (ghr_), fine-grained PATs.
  { name: "github", pattern: /\bgh[pousr]_[A-Za-z0-9]{16,255}\b/g },
  { name: "github-pat", pattern: /\bgithub_pat_[A-Za-z0-9_]{22,255}\b/g },
  // OpenAI / Anthropic / most OpenAI-compatible providers: sk-…, sk-proj-…, sk-ant-….
  { name: "sk", pattern: /\bsk-[A-Za-z0-9_-]{16,}/g },
  // AWS access key ids (long-term AKIA, temporary ASIA).
  { name: "aws", pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  // AWS secret access key when labelled as one.
  { name: "aws-secret", pattern: /(aws_secret_access_key["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{40}/gi, keep: true },
  // Google API keys, Slack tokens.
  { name: "google", pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { name: "slack", pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
  // JSON Web Tokens (the App's own JWTs are credentials for ten minutes).
  { name: "jwt", pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  // Credentials in a URL (https://x-access-token:TOKEN@host) and in an Authorization header.
  { name: "url-credentials", pattern: /(\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:)[^@\s/]+(?=@)/gi, keep: true },
  {
    name: "authorization",
    pattern: /(\bauthorization["']?\s*[:=]\s*["']?(?:token|bearer|basic)\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
    keep: true,
  },
];

/**
 * A redactor that knows `secrets` (undefined and short values are skipped) and the built-in shapes, then runs
 * `passes` (the job process's secrets known only by their fingerprints). A redactor is a value: each driver's
 * composition root builds its own and hands it to every writer, so two redactors never share what they know.
 */
export function createSecretRedactor(
  secrets: Iterable<string | undefined | null> = [],
  passes: readonly ((text: string) => string)[] = [],
): SecretRedactor {
  const values = new Set<string>();
  let matcher: RegExp | null = null;
  const add = (secret: string | undefined | null) => {
    if (!secret) return;
    let grew = false;
    for (const part of secretParts(secret)) {
      if (values.has(part)) continue;
      values.add(part);
      grew = true;
    }
    // Longest first, so a value that contains another is replaced whole.
    if (grew)
      matcher = new RegExp(
        [...values]
          .sort((a, b) => b.length - a.length)
          .map(escapeRegExp)
          .join("|"),
        "g",
      );
  };
  for (const s of secrets) add(s);
  // Not a method: callers keep `redactor.redact` as a plain function (a model client's `redact`).
  const redact = (text: string): string => {
    let out = matcher ? text.replace(matcher, REDACTED) : text;
    for (const shape of SHAPES) out = out.replace(shape.pattern, shape.keep ? `$1${REDACTED}` : REDACTED);
    for (const pass of passes) out = pass(out);
    return out;
  };
  return { add, redact };
}

/** The pieces of a secret to look for: the value itself and, for a multi-line value, each substantial line. */
function secretParts(secret: string): string[] {
  const parts = secret.length >= MIN_SECRET_LENGTH ? [secret] : [];
  if (secret.includes("\n")) {
    for (const line of secret.split(/\r?\n/)) {
      const t = line.trim();
      // PEM armour lines (-----BEGIN …) are public and caught by the PEM shape anyway.
      if (t.length >= MIN_SECRET_LENGTH && !t.startsWith("-----")) parts.push(t);
    }
  }
  return parts;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Every string inside `value` (objects and arrays, recursively) passed through `redact`; other values as they are. */
export function redactDeep<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === "string") return redact(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redact)) as T;
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, redact)])) as T;
  }
  return value;
}
