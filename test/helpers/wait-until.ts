import { POLL_MS, WAIT_MS } from "./timeouts.js";

/**
 * The suite's one polling helper: poll until `check` holds (instead of sleeping for a guessed time). On timeout,
 * throws with `explain` (a text, or a function read at that moment) so the failure says what was awaited and seen.
 * `await waitUntil(() => pr() !== undefined, () => e2e.logs().slice(-3000))`
 */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  explain: string | (() => string),
  timeoutMs = WAIT_MS,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end)
      throw new Error(
        `condition not met within ${timeoutMs} ms: ${typeof explain === "string" ? explain : `\n${explain()}`}`,
      );
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
