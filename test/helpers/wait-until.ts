import { POLL_MS, WAIT_MS } from "./timeouts.js";

/**
 * Poll until `check` holds (instead of sleeping for a guessed time). On timeout, throws with `explain()` so the
 * failure says what was seen. `await waitUntil(() => pr() !== undefined, () => e2e.logs().slice(-3000))`
 */
export async function waitUntil(check: () => boolean, explain: () => string, timeoutMs = WAIT_MS): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms:\n${explain()}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
