/** Types of timeouts.js (plain JS so that jest.config.js can import it). */
export declare const WAIT_MS: number;
export declare const TEST_TIMEOUT_MS: number;
export declare const POLL_MS: number;
