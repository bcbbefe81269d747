/** Types of build-once.js (plain JS: jest loads it as global setup before any transform exists). */
export default function buildOnce(): Promise<void>;
export const TEST_SCRIPTS: string[];
/** Where jest's global setup built a test script (a path relative to the repository root) to. */
export function builtScript(script: string): string;
export const TEST_APP_KEY: string;
