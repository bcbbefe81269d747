/**
 * `npm run bench replay [-- --format diff,whole --cases co-throw,uuid-compare --variant clean|noisy --unsandboxed]`:
 * real commits of real repositories replayed through the real app (see bench/replay/run-replay.ts). For each case,
 * format and variant it prints whether the pushed tree is the real commit and passes the repository's tests, the
 * rounds, the bot's time, the repository's own setup and test time, and the time of its CI commands as the bot ran
 * them, run once on the host; then per format and variant the share solved, and the bot's overhead (its time over the
 * repository's setup + test time, and over its CI commands run once; medians over the clean runs).
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { sendWebhook } from "../testkit/send-webhook.js";
import { startRig, WEBHOOK_SECRET, percentile } from "./lib/app-rig.js";
import { readManifest } from "./replay/replay-case.js";
import { parseReplayArgs } from "./replay/replay-args.js";
import { planRuns } from "./replay/replay-plan.js";
import { runReplay, type ReplayApp, type ReplayResult } from "./replay/run-replay.js";

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** RUSTUP_HOME for the app where the host's Rust is a rustup install in the default place (~/.rustup). */
function rustupHome(): Record<string, string> {
  if (process.env.RUSTUP_HOME) return { RUSTUP_HOME: process.env.RUSTUP_HOME };
  const dir = path.join(os.homedir(), ".rustup");
  return existsSync(dir) ? { RUSTUP_HOME: dir } : {};
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

export async function runReplayBench(args: string[]): Promise<ReplayResult[]> {
  const manifest = await readManifest();
  const { formats, cases: ids, variants, sandbox, repeat, cold, modelLatencyMs } = parseReplayArgs(args);
  const cases = ids ? manifest.cases.filter((c) => ids.includes(c.id)) : manifest.cases;
  const missing = ids?.filter((id) => !manifest.cases.some((c) => c.id === id)) ?? [];
  if (missing.length)
    throw new Error(`--cases: no case ${missing.join(", ")} (known: ${manifest.cases.map((c) => c.id).join(", ")})`);

  const rig = await startRig({ files: { "README.md": "replay\n" }, permissions: {} });
  const port = await freePort();
  const proc = await rig.start(
    ["serve"],
    {
      PORT: String(port),
      AIDER_BOT_SANDBOX: sandbox,
      // AIDER_BOT_SPARE is left at its default, as a deployment runs: a job process is kept started ahead, so a run does
      // not pay Node's start and the modules' loading (~0.5 s of CPU) before its clone.
      // Each run's `run finished` line (info, JSON) names the check commands it ran: the judge times them once.
      ...(process.env.BENCH_LOG_LEVEL ? {} : { LOG_LEVEL: "info", LOG_FORMAT: "json" }),
      // The rig gives the app a HOME of its own: a rustup install under this user's home is named explicitly.
      ...rustupHome(),
      // REPLAY_APP_MAIN: another build's `dist/cli/main.js` (inside a checkout, so its packages resolve), to compare
      // two builds in alternating runs on the same machine.
    },
    undefined,
    process.env.REPLAY_APP_MAIN || undefined,
  );
  const healthz = `http://127.0.0.1:${port}/healthz`;
  const app: ReplayApp = {
    modelLatencyMs,
    fake: rig.fake,
    llm: rig.llm,
    send: (event, payload) =>
      sendWebhook({ url: `http://127.0.0.1:${port}/api/github/webhooks`, secret: WEBHOOK_SECRET, event, payload }),
    appLog: () => proc.output(),
    idle: async () => {
      const t0 = performance.now();
      for (;;) {
        const stats = (await (await fetch(healthz)).json()) as { running?: number; queued?: number };
        if (!stats.running && !stats.queued) return;
        if (performance.now() - t0 > 1_800_000) throw new Error(`a run did not finish:\n${proc.output().slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
  console.log(
    `replay: ${cases.length} cases × ${formats.join(", ")} × ${variants.join(", ")}${repeat > 1 ? ` × ${repeat} runs each` : ""}, checks ${sandbox === "off" ? "unsandboxed" : "in bubblewrap"}, ${cold ? "every run a repository of its own (caches cold)" : "runs of one repository share it (caches warm after its first run)"}${modelLatencyMs ? `, the model answering ${modelLatencyMs} ms after each request` : ""}`,
  );
  console.log(
    "case                     format       variant cache noise    solved rounds   bot  setup   test     ci answer  why",
  );
  const results: ReplayResult[] = [];
  const judgeHome = await mkdtemp(path.join(os.tmpdir(), "replay-judge-home-"));
  try {
    for (const run of planRuns(cases, formats, variants, { repeat, cold })) {
      const { case: c, format, variant } = run;
      const r = await runReplay(app, c, format, variant, run.seed, judgeHome, run);
      results.push(r);
      console.log(
        [
          c.id.padEnd(24),
          format.padEnd(12),
          variant.padEnd(7),
          r.cache.padEnd(5),
          (r.noise ?? "-").padEnd(8),
          (r.solved ? (r.whitespaceOnly ? "yes(ws)" : "yes") : "NO").padEnd(6),
          String(r.rounds).padStart(6),
          secs(r.botMs).padStart(6),
          secs(r.setupMs).padStart(6),
          secs(r.testMs).padStart(6),
          (r.ci ? `${secs(r.ci.ms)}${r.ci.ok ? "" : "!"}` : "-").padStart(6),
          (r.answeredMs !== undefined ? secs(r.answeredMs) : "-").padStart(6),
          ` checks: ${r.checks}`,
          r.ci && !r.ci.ok ? ` · ci: ${r.ci.tail}` : "",
          r.why ? ` · ${r.why}` : "",
        ].join(" "),
      );
      // A clean run needs one answer: one that took more is shown as an unsolved one is (what did the checks say?).
      const odd = !r.solved || (r.variant === "clean" && r.rounds > 1);
      if (process.env.REPLAY_VERBOSE && (odd || process.env.REPLAY_VERBOSE === "all")) console.log(r.status);
    }
  } finally {
    // The app's own log (one JSON line per stage, with times): where a run's time went.
    if (process.env.REPLAY_APP_LOG) await writeFile(process.env.REPLAY_APP_LOG, proc.output());
    await rig.close();
    await rm(judgeHome, { recursive: true, force: true });
  }
  printSummary(results);
  return results;
}

/** What the bot's time is divided by: the judge's setup + test time, or CI's own commands run once. */
export type OverheadBase = "judge" | "ci";

/** A run's time of the given base, or null where it was not measured (or CI's commands did not all pass). */
const baseMs = (r: ReplayResult, base: OverheadBase): number | null =>
  base === "judge" ? r.setupMs + r.testMs : r.ci?.ok ? r.ci.ms : null;

/**
 * The bot's overhead over the solved clean runs with a known repository time, cold and warm side by side (a cold run
 * is its repository's first in the bench), then all together: its time ÷ the judge's setup + test time (`judge`), or
 * ÷ the repository's CI commands as the bot ran them, run once on the host (`ci`).
 */
export function overheadByCache(
  results: readonly ReplayResult[],
  base: OverheadBase = "judge",
  /** The bot's time: until the job is idle (`idle`), or until the user has the answer (`answered`). */
  until: "idle" | "answered" = "idle",
): { cache: "cold" | "warm" | "all"; median: number; p90: number; runs: number }[] {
  const botOf = (r: ReplayResult) => (until === "idle" ? r.botMs : r.answeredMs);
  const clean = results.filter(
    (r) => r.variant === "clean" && r.solved && (baseMs(r, base) ?? 0) > 0 && botOf(r) !== undefined,
  );
  const rows = [];
  for (const cache of ["cold", "warm", "all"] as const) {
    const rs = cache === "all" ? clean : clean.filter((r) => r.cache === cache);
    if (!rs.length) continue;
    const ratios = rs.map((r) => botOf(r)! / baseMs(r, base)!);
    rows.push({ cache, median: percentile(ratios, 50), p90: percentile(ratios, 90), runs: rs.length });
  }
  return rows;
}

/**
 * An unsolved run whose pushed tree passes the repository's own tests but differs from the commit: the part left out
 * is covered by no test, so no check could have sent the model back to it.
 */
export const untestedMiss = (r: ReplayResult): boolean => !r.solved && r.testsPass && !r.sourceEqual;

export function printSummary(results: readonly ReplayResult[]): void {
  console.log("\nsolved per format and variant (noisy: within three rounds of reflection)");
  const formats = [...new Set(results.map((r) => r.format))];
  for (const variant of ["clean", "noisy"] as const)
    for (const format of formats) {
      const rs = results.filter((r) => r.format === format && r.variant === variant);
      if (!rs.length) continue;
      const solved = rs.filter((r) => r.solved).length;
      const ws = rs.filter((r) => r.solved && r.whitespaceOnly).length;
      const checked = rs.filter((r) => r.checked).length;
      // Runs whose mistake no test of the repository sees (see `untestedMiss`) are counted, and also shown apart.
      const seen = rs.filter((r) => !untestedMiss(r));
      const apart =
        seen.length < rs.length
          ? `; ${seen.filter((r) => r.solved).length}/${seen.length} (${Math.round((100 * seen.filter((r) => r.solved).length) / seen.length)} %) of those whose mistake the repository's own tests see`
          : "";
      console.log(
        `  ${variant.padEnd(6)} ${format.padEnd(12)} ${solved}/${rs.length} (${Math.round((100 * solved) / rs.length)} %)${ws ? ` (${ws} equal modulo whitespace)` : ""}${apart}  rounds median ${percentile(
          rs.map((r) => r.rounds),
          50,
        )}  the bot's own run of the tests green: ${checked}/${rs.length}`,
      );
    }
  const rowsOf = (overhead: ReturnType<typeof overheadByCache>) =>
    overhead
      .map(
        (o) =>
          `  ${o.cache.padEnd(5)} median ${o.median.toFixed(2)}×, p90 ${o.p90.toFixed(2)}× over ${o.runs} runs${o.cache === "all" ? "" : o.cache === "cold" ? " (its repository's first run: package caches, mirror and base results empty)" : " (a later run of the same repository: caches kept)"}`,
      )
      .join("\n");
  const overhead = overheadByCache(results);
  if (overhead.length)
    console.log(
      `\nbot overhead (bot time ÷ the repository's own setup + test time, solved clean runs):\n${rowsOf(overhead)}`,
    );
  const overCi = overheadByCache(results, "ci");
  if (overCi.length)
    console.log(
      `\nbot time ÷ CI's own commands run once (the setup, lint and test commands the bot found and ran, run once on the host on a fresh clone of what it pushed; solved clean runs where all of them passed):\n${rowsOf(overCi)}`,
    );
  // The user's wait ends with the answer (the run's Check Run concluded, its status and push with it); the job may go
  // on a few seconds more, finishing a base command for later runs (the two figures above count that too).
  const answered = overheadByCache(results, "judge", "answered");
  const answeredCi = overheadByCache(results, "ci", "answered");
  if (answered.length)
    console.log(
      `
time to the answer (POST → the run's Check Run concluded) ÷ the repository's own setup + test time:\n${rowsOf(answered)}${answeredCi.length ? `\n… ÷ CI's own commands run once:\n${rowsOf(answeredCi)}` : ""}`,
    );
  // An unsolved run whose pushed tree passes the repository's own tests left out a part no test covers: the bot had
  // no signal to find it (counted as unsolved all the same, and named apart here so the two causes are not mixed).
  const untested = results.filter(untestedMiss);
  if (untested.length)
    console.log(
      `\nunsolved although the repository's own tests pass on the pushed tree (what differs is covered by no test): ${untested.length} — ${untested.map((r) => `${r.id} ${r.format} ${r.variant}${r.noise ? ` (${r.noise})` : ""}`).join(", ")}`,
    );
  const unsolved = results.filter((r) => !r.solved);
  if (unsolved.length) {
    console.log("\nunsolved:");
    for (const r of unsolved)
      console.log(`  ${r.id} ${r.format} ${r.variant}: ${r.why}${r.note ? ` (known: ${r.note})` : ""}`);
  }
  const notes = new Map(results.filter((r) => r.note).map((r) => [r.id, r.note!]));
  if (notes.size) {
    console.log("\ndocumented limits (why these cases' own checks cannot all run here):");
    for (const [id, note] of notes) console.log(`  ${id}: ${note}`);
  }
}
