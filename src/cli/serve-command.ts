import { run } from "probot";
import { createApp } from "../app/create-app.js";
import { startAppServer } from "../app/start-app-server.js";
import { readEnv } from "../config/env.js";
import { readPrivateKey } from "../config/private-key.js";

/**
 * `aider-bot serve` / `npm start`: the GitHub App's webhook server. Without App credentials it starts Probot's
 * setup flow (register the App from app.yml). Stops gracefully on SIGTERM/SIGINT: running jobs get time to finish,
 * and jobs cut off end with a status comment that says so.
 */
export async function serveCommand(source?: Readonly<Record<string, string | undefined>>): Promise<void> {
  const env = readEnv(source);
  const privateKey = await readPrivateKey(env);
  if (!env.appId || !privateKey) {
    process.stderr.write(
      "aider-bot: APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH) are not set: starting Probot's setup to register the GitHub App.\n",
    );
    await run(createApp(env).appFn);
    return;
  }
  const server = await startAppServer(env, privateKey, { throttle: env.throttle });
  process.stdout.write(`aider-bot listening on ${server.webhookUrl}\n`);
  const stop = async (signal: string) => {
    server.probot.log.info({ signal }, "shutting down: finishing running jobs");
    await server.shutdown(env.shutdownMs);
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
}
