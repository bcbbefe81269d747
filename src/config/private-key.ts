import { readFile } from "node:fs/promises";
import type { AppEnv } from "./env.js";

/**
 * The App's private key: PRIVATE_KEY, else the file PRIVATE_KEY_PATH names (the operator's file, not checkout
 * content); undefined when neither is set. A file that cannot be read is an error naming the variable, never the key.
 */
export async function readPrivateKey(env: Pick<AppEnv, "privateKey" | "privateKeyPath">): Promise<string | undefined> {
  if (env.privateKey) return env.privateKey;
  if (!env.privateKeyPath) return undefined;
  try {
    return await readFile(env.privateKeyPath, "utf8");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new Error(
      `PRIVATE_KEY_PATH names a file that cannot be read (${typeof code === "string" ? code : "error"}): point it at the App's private key (.pem) or set PRIVATE_KEY instead.`,
    );
  }
}
