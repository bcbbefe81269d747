/**
 * Every wait in the test suite derives from WAIT_MS, so jest's own limit is always the last to fire: a harness wait
 * that runs out throws with its diagnostics (the app's log, the status comment) instead of jest's bare "Exceeded
 * timeout". Plain JS so jest.config.js can import it too. Raise AIDER_BOT_TEST_WAIT_MS on a very slow machine.
 */
import process from "node:process";

const scaled = Number(process.env.AIDER_BOT_TEST_WAIT_MS);

/** The longest a harness waits for one thing (the app to start, the queue to drain, a PR to appear). */
export const WAIT_MS = Number.isFinite(scaled) && scaled > 0 ? scaled : 60_000;

/** jest's per-test and per-hook limit: room for an app start and two full waits, so a harness wait fails first. */
export const TEST_TIMEOUT_MS = WAIT_MS * 4;

/** How often a harness re-checks a condition it is polling for. */
export const POLL_MS = 50;
