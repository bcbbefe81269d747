/**
 * `npm run bench checks`: the time from the model's answer to the first check result, with the repository's test
 * command run in bubblewrap (the host's Python), in a container started by that check (cold: the image is present,
 * no container runs yet, a fresh cache volume) and in the job's container already started while the model worked
 * (warm: as the app does it, `useContainer` starts it when the checkout exists; its cache volume filled). Every
 * mode runs the same coder round on a fresh checkout — the edit applied, the syntax check, then the test command —
 * interleaved, several times; medians are printed side by side with their ratio to bubblewrap.
 * Target: container warm ≤ 1.5× bubblewrap. Needs bubblewrap and podman (the image is built from the host's files).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";

import path from "node:path";
import pino from "pino";
import { createCheckExec } from "../src/app/create-check-exec.js";
import type { CoderOptions } from "../src/coder/types.js";
import { runCoder } from "../src/coder/run-coder.js";
import { readEnv } from "../src/config/env.js";
import { createExec } from "../src/exec/create-exec.js";
import type { Exec } from "../src/exec/types.js";
import type { LlmClient } from "../src/llm/types.js";
import { createCoderDeps } from "../src/compose/create-coder-deps.js";
import { createGit } from "../src/workspace/create-git.js";
import { ensureTestImage, TEST_IMAGE } from "../test/helpers/podman-test-image.js";

const ROUNDS = Number(process.env.CHECKS_BENCH_ROUNDS ?? 5);
const TEST = "python3 -m unittest -q";
const REPLY = "calc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```\n";
const log = pino({ level: "silent" });
type Mode = "bubblewrap" | "container cold" | "container warm";

export async function runChecksBench(): Promise<void> {
  ensureTestImage();
  const exec = createExec({ sourceEnv: process.env });
  const root = await mkdtemp(path.join(process.cwd(), ".checks-bench-"));
  const volumeKey = `bench/checks-${process.pid}`;
  const times: Record<Mode, number[]> = { bubblewrap: [], "container cold": [], "container warm": [] };
  try {
    // One untimed round of each first: the page cache, the image's layers and Python's bytecode are warm for all.
    for (let i = 0; i <= ROUNDS; i++) {
      for (const mode of Object.keys(times) as Mode[]) {
        const ms = await oneRound(mode, exec, path.join(root, `${i}-${mode.replace(" ", "-")}`), volumeKey);
        if (i > 0) times[mode].push(ms);
      }
    }
  } finally {
    await rm(root, { recursive: true, force: true });
    const volumes = spawnSync("podman", ["volume", "ls", "--format", "{{.Name}}"], { encoding: "utf8" }).stdout.split(
      "\n",
    );
    const ours = volumes.filter(
      (v) => v.startsWith(`aider-bot-cache-bench-checks-${process.pid}`) || v.includes("checks-bench-"),
    );
    if (ours.length) spawnSync("podman", ["volume", "rm", "--force", ...ours]);
  }
  const base = median(times.bubblewrap);
  console.log(
    `\nchecks: model's answer → first check result (\`${TEST}\`), median of ${ROUNDS} rounds each, interleaved`,
  );
  for (const mode of Object.keys(times) as Mode[]) {
    const m = median(times[mode]);
    console.log(
      `  ${mode.padEnd(15)} ${m.toFixed(0).padStart(6)} ms   ${(m / base).toFixed(2)}× bubblewrap   (${times[mode].map((t) => t.toFixed(0)).join(", ")})`,
    );
  }
  const warm = median(times["container warm"]) / base;
  console.log(`  target: container warm ≤ 1.5× bubblewrap: ${warm <= 1.5 ? "met" : "NOT met"} (${warm.toFixed(2)}×)`);
}

/** One coder round on a fresh checkout; returns ms from the model's answer to the first check's result. */
async function oneRound(mode: Mode, exec: Exec, dir: string, volumeKey: string): Promise<number> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, "calc.py"), "def add(a, b):\n    return a - b\n");
  await writeFile(
    path.join(dir, "test_calc.py"),
    "import unittest\nimport calc\n\n\nclass T(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(calc.add(1, 2), 3)\n",
  );
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@example.com", ...args], {
      cwd: dir,
      stdio: "ignore",
    });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-qm", "init");
  const env = readEnv({
    AIDER_BOT_SANDBOX: mode === "bubblewrap" ? "bubblewrap" : "container",
    AIDER_BOT_DEFAULT_IMAGE: TEST_IMAGE,
    AIDER_BOT_SANDBOX_NETWORK: "0",
  });
  const checkExec = createCheckExec(env, exec, log, { appDir: path.join(dir, "no-app") });
  // Cold: a cache volume of its own (empty); warm: the shared one, filled by the rounds before.
  const target = {
    image: TEST_IMAGE,
    imageSource: "the bench",
    checkout: dir,
    cacheKey: mode === "container cold" ? `${volumeKey}-cold-${path.basename(dir)}` : volumeKey,
  };
  if (mode === "container warm") {
    // The app starts the container when the checkout exists, while the model works: wait for it here.
    checkExec.useContainer!(target);
    await checkExec.run({
      command: "mkdir -p /aider-cache/pip && touch /aider-cache/pip/filled",
      shell: true,
      cwd: dir,
    });
  }
  let answered = 0;
  let firstCheck = 0;
  const llm: LlmClient = {
    complete: async () => {
      answered = performance.now();
      return {
        text: REPLY,
        finishReason: "stop",
        usage: { promptTokens: 100, completionTokens: 50 },
        usageEstimated: false,
        costUsd: null,
      } as unknown as Awaited<ReturnType<LlmClient["complete"]>>;
    },
  };
  const timed: Exec = {
    ...checkExec,
    run: async (req) => {
      const r = await checkExec.run(req);
      firstCheck ||= performance.now();
      return r;
    },
  };
  try {
    const deps = createCoderDeps({ root: dir, exec, checkExec: timed, git: createGit(exec), llm, protectedPaths: [] });
    const result = await runCoder(options(), deps);
    if (result.outcome !== "changed")
      throw new Error(
        `${mode}: the round did not pass its test (${result.outcome}): ${"report" in result ? result.report.output : ""}`,
      );
    return firstCheck - answered;
  } finally {
    await checkExec.close?.();
  }
}

function options(): CoderOptions {
  return {
    message: "fix add",
    files: ["calc.py"],
    readFiles: [],
    editFormat: "diff",
    model: "gpt-4o",
    lintCommands: [],
    testCommand: TEST,
    autoTest: true,
    maxReflections: 0,
    mapTokens: 0,
    commit: false,
    protectedPaths: [],
    budget: {},
    commandTimeoutMs: 120_000,
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

if (process.argv[1] === new URL(import.meta.url).pathname) await runChecksBench();
