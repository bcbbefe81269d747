import { parseRepoConfig, type ConfigResult } from "./repo-config.js";

/**
 * A repository's config as every driver reads it: loaded (Probot's `context.config` in the App, the default branch's
 * file in the Action), then validated; a file that cannot be read, or is not even YAML, is a problem the user is told
 * about like any other.
 */
export async function loadRepoConfig(load: () => Promise<unknown>): Promise<ConfigResult> {
  try {
    return parseRepoConfig(await load());
  } catch (error) {
    return {
      ok: false,
      problems: [
        { path: "(file)", message: `cannot be read: ${error instanceof Error ? error.message : String(error)}` },
      ],
    };
  }
}
