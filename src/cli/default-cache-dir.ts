import { createHash } from "node:crypto";
import os from "node:os";
import path from "node:path";

/**
 * Where the CLI keeps repo-map tag caches for a checkout: outside the checkout (so `git status` stays clean),
 * under `$XDG_CACHE_HOME` or `~/.cache`, one folder per absolute checkout path.
 */
export function defaultCacheDir(root: string, env: Readonly<Record<string, string | undefined>>): string {
  const base =
    env.AIDER_BOT_CACHE_DIR ?? path.join(env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "aider-bot");
  const key = createHash("sha1").update(path.resolve(root)).digest("hex").slice(0, 16);
  return path.join(base, "repomap", key);
}
