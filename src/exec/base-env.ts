/**
 * The environment a child process starts from: an allow-list, so the model key, the App's private key and
 * installation tokens never reach repository scripts (lint/test commands run the repo's own code).
 */
const ALLOWED = [
  "PATH",
  "HOME",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "TERM",
  "TMPDIR",
  "TZ",
  "USER",
  "LOGNAME",
  "SHELL",
  "CI",
  "NODE_ENV",
  "GIT_SSL_CAINFO",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  // Where rustup keeps its toolchains (the official Rust images set it): `cargo` and `rustc` on the PATH are rustup's
  // proxies, which otherwise look in $HOME/.rustup, and a job's commands get a HOME of their own.
  "RUSTUP_HOME",
] as const;

/** Pick the allow-listed variables from a source environment. `baseEnv(sourceEnv())` */
export function baseEnv(source: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ALLOWED) {
    const value = source[name];
    if (value !== undefined) env[name] = value;
  }
  env.PATH ??= "/usr/local/bin:/usr/bin:/bin";
  return env;
}
