/**
 * `npm run bench`: every benchmark, each printing its timings as ratios to a baseline measured side by side in
 * the same run (never absolute thresholds: these machines are shared and noisy).
 */
import { runEditsBench } from "./edits-bench.js";
import { runRepomapBench } from "./repomap-bench.js";

const only = process.argv[2];
if (!only || only === "edits") await runEditsBench();
if (!only || only === "repomap") await runRepomapBench();
if (!only || only === "recall") {
  const { runRecallBench } = await import("./recall-bench.js");
  await runRecallBench(process.argv[3]);
}
// The app benchmarks (minutes each): `npm run bench storm [embedded|redis]`, `npm run bench overhead [demo|700|3000]`.
if (!only || only === "storm") {
  const { runStormBench } = await import("./storm-bench.js");
  await runStormBench(process.argv[3]);
}
// Container sandbox vs bubblewrap (needs podman and bubblewrap): `npm run bench checks`.
if (only === "checks") {
  const { runChecksBench } = await import("./checks-bench.js");
  await runChecksBench();
}
if (!only || only === "overhead") {
  const { runOverheadBench } = await import("./run-overhead-bench.js");
  await runOverheadBench(process.argv[3]);
}
// Prompt caching across a run's rounds, caching on against off, per protocol: `npm run bench cost`.
if (!only || only === "cost") {
  const { runCostBench } = await import("./cost-bench.js");
  await runCostBench();
}
// The registries network policy's proxy against a direct connection, on `npm ci` (needs bubblewrap and socat).
if (only === "egress") {
  const { runEgressBench } = await import("./egress-bench.js");
  await runEgressBench();
}
// The Action's start-up from a release bundle vs building from source (needs the npm registry): `npm run bench action-start`.
if (only === "action-start") {
  const { runActionStartBench } = await import("./action-start-bench.js");
  await runActionStartBench();
}
// A repository's own commands in the bot's sandbox against the host, on a replay case's checkout:
// `npm run bench sandbox-cost [-- --cases clsx-56ab81f --command "npm install" --runs 5 --cache cold|warm|both]`.
if (only === "sandbox-cost") {
  const { runSandboxCostBench } = await import("./sandbox-cost-bench.js");
  await runSandboxCostBench(process.argv.slice(3));
}
// The base's run beside the change's checks, at normal priority and as background work: `npm run bench base-priority`.
if (only === "base-priority") {
  const { runBasePriorityBench } = await import("./base-priority-bench.js");
  await runBasePriorityBench(Number(process.argv[3]) || 5);
}
// Real commits of real repositories replayed through the app (minutes per case: not part of the default run):
// `npm run bench replay [-- --format diff --cases a,b --variant clean|noisy --unsandboxed]`.
if (only === "replay") {
  const { runReplayBench } = await import("./replay-bench.js");
  await runReplayBench(process.argv.slice(3));
}
// Hand-written pieces against the libraries they stand in for: `npm run bench libs [piece]`, piece one of http,
// retries, kill, tokens, pool, router (default: all).
if (only === "libs") {
  const { runLibsBench } = await import("./libs/libs-bench.js");
  await runLibsBench(process.argv[3]);
}
