import { startWorker } from "../app/start-worker.js";
import { readEnv } from "../config/env.js";
import { readPrivateKey } from "../config/private-key.js";

/**
 * `aider-bot worker`: runs jobs from the Redis queue beside any number of receivers and other workers. SIGTERM and
 * SIGINT stop it gracefully: running jobs get AIDER_BOT_SHUTDOWN_MS, then go back in the queue for another worker.
 */
export async function workerCommand(source?: Readonly<Record<string, string | undefined>>): Promise<void> {
  const env = readEnv(source);
  const privateKey = await readPrivateKey(env);
  if (!env.appId || !privateKey)
    throw new Error(
      "APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH) must be set: a worker mints installation tokens with the App's key.",
    );
  const worker = await startWorker(env, privateKey);
  process.stdout.write("aider-bot worker ready\n");
  const stop = async (signal: string) => {
    worker.probot.log.info({ signal }, "shutting down: finishing running jobs");
    await worker.app.shutdown(env.shutdownMs);
    process.exit(0);
  };
  process.once("SIGTERM", () => void stop("SIGTERM"));
  process.once("SIGINT", () => void stop("SIGINT"));
}
