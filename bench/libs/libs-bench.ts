/**
 * `npm run bench libs [piece]`: each hand-written piece that a kept library could replace, measured side by side
 * with that library in one run (issue #33). The decisions and their figures are in docs/performance.md,
 * "Libraries and hand-written code".
 */
const PIECES: Record<string, () => Promise<void>> = {
  http: async () => (await import("./http-bench.js")).runHttpBench(),
  tokens: async () => (await import("./tokens-bench.js")).runTokensBench(),
  kill: async () => (await import("./kill-bench.js")).runKillBench(),
  retries: async () => (await import("./retries-bench.js")).runRetriesBench(),
  pool: async () => (await import("./pool-bench.js")).runPoolBench(),
  router: async () => (await import("./router-bench.js")).runRouterBench(),
};

export async function runLibsBench(only?: string): Promise<void> {
  if (only && !PIECES[only]) throw new Error(`unknown piece "${only}": one of ${Object.keys(PIECES).join(", ")}`);
  for (const [name, run] of Object.entries(PIECES)) if (!only || only === name) await run();
}
