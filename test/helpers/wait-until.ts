import { POLL_MS, WAIT_MS } from "./timeouts.js";

/**
 * The suite's one polling loop: re-check `check` every POLL_MS until it holds (true) or `timeoutMs` has passed
 * (false). For a test that wants the answer either way (which processes survived); most want {@link waitUntil}.
 */
export async function pollUntil(check: () => boolean | Promise<boolean>, timeoutMs = WAIT_MS): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}

/**
 * The suite's polling helper: poll until `check` holds (instead of sleeping for a guessed time). On timeout,
 * throws with `explain` (a text, or a function read at that moment) so the failure says what was awaited and seen.
 * `await waitUntil(() => pr() !== undefined, () => e2e.logs().slice(-3000))`
 */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  explain: string | (() => string),
  timeoutMs = WAIT_MS,
): Promise<void> {
  if (!(await pollUntil(check, timeoutMs)))
    throw new Error(
      `condition not met within ${timeoutMs} ms: ${typeof explain === "string" ? explain : `\n${explain()}`}`,
    );
}
