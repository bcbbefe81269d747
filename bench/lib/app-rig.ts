/**
 * A rig for whole-app benchmarks: the fake GitHub (REST + git over HTTP) and a scripted model on 127.0.0.1, and the
 * built app started as real processes (`node dist/cli/main.js …`), as a deployment runs it. Nothing is mocked inside
 * the app; the benches read what it did from the fake's state.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { appendFileSync, existsSync, statSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { createExec } from "../../src/exec/create-exec.js";
import { seedRepo } from "../../testkit/seed-repo.js";
import type { FakeRepo } from "../../testkit/fake-github-state.js";
import { startFakeGitHub, type FakeGitHub } from "../../testkit/start-fake-github.js";
import {
  startScriptedLlmServer,
  type ScriptedLlmServer,
  type ScriptedReply,
} from "../../testkit/scripted-llm-server.js";

export const WEBHOOK_SECRET = "bench-webhook-secret";
const MAIN = path.resolve("dist/cli/main.js");

/** Build dist/ when it is missing or older than src/ (the benches run the built app, as production does). */
export async function ensureBuilt(): Promise<void> {
  const newest = async (dir: string): Promise<number> => {
    let max = 0;
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      max = Math.max(max, entry.isDirectory() ? await newest(full) : (await stat(full)).mtimeMs);
    }
    return max;
  };
  if (existsSync(MAIN) && statSync(MAIN).mtimeMs >= (await newest(path.resolve("src")))) return;
  process.stdout.write("building dist/ for the app benchmarks…\n");
  const r = await createExec({ sourceEnv: process.env }).run({
    command: "npm",
    args: ["run", "build"],
    cwd: process.cwd(),
    timeoutMs: 300_000,
  });
  if (r.exitCode !== 0) throw new Error(`npm run build failed:\n${r.output}`);
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface AppProcess {
  child: ChildProcess;
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface Rig {
  fake: FakeGitHub;
  llm: ScriptedLlmServer;
  repo: FakeRepo;
  work: string;
  /** Env every app process of this rig gets (App credentials, fake GitHub, scripted model). */
  appEnv: Record<string, string>;
  /**
   * Start `aider-bot <command>` (serve, worker, …) with the rig's env plus `extra`; resolves when `ready` is printed.
   * `main`: another build's `dist/cli/main.js` (a bench comparing two builds side by side); default this checkout's.
   */
  start(command: string[], extra?: Record<string, string>, ready?: string, main?: string): Promise<AppProcess>;
  close(): Promise<void>;
}

export async function startRig(spec: {
  files: Record<string, string>;
  permissions: Record<string, string>;
  replies?: ScriptedReply[];
}): Promise<Rig> {
  await ensureBuilt();
  const sourceEnv = process.env;
  // BENCH_GITHUB_LATENCY_MS: each request to the fake GitHub (API and git) waits this long first, as a network round
  // trip to GitHub would (the app's and the floor's alike); default 0.
  const latencyMs = Number(process.env.BENCH_GITHUB_LATENCY_MS ?? 0) || 0;
  const fake = await startFakeGitHub({ sourceEnv, ...(latencyMs > 0 ? { latencyMs } : {}) });
  const llm = await startScriptedLlmServer(spec.replies ?? []);
  const repo = await seedRepo(fake, {
    owner: "acme",
    name: "widgets",
    files: spec.files,
    permissions: spec.permissions,
  });
  const { privateKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  const work = await mkdtemp(path.join(os.tmpdir(), "bench-app-"));
  await mkdir(path.join(work, "jobs"));
  const appEnv: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: work,
    LANG: "C.UTF-8",
    APP_ID: "1",
    PRIVATE_KEY: privateKey,
    WEBHOOK_SECRET,
    GHE_HOST: new URL(fake.apiUrl).host,
    GHE_PROTOCOL: "http",
    HOST: "127.0.0.1",
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "warn",
    LOG_FORMAT: process.env.BENCH_LOG_LEVEL ? "json" : "pretty",
    AIDER_BOT_THROTTLE: "0",
    NO_SMEE_SETUP: "true",
    OPENAI_BASE_URL: llm.baseUrl,
    OPENAI_API_KEY: "sk-bench-model-key",
    AIDER_BOT_MODEL: "gpt-4o",
    AIDER_BOT_CACHE_DIR: path.join(work, "cache"),
    AIDER_BOT_WORK_DIR: path.join(work, "jobs"),
    AIDER_BOT_DATA_DIR: path.join(work, "queue"),
    AIDER_BOT_SCHEDULES: "off",
    // BENCH_JOB_NODE_OPTIONS reaches the job processes too (they inherit the app's environment, less its secrets),
    // e.g. "--import=/path/to/profiler-hook.mjs" (NODE_OPTIONS refuses --cpu-prof).
    ...(process.env.BENCH_JOB_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_JOB_NODE_OPTIONS } : {}),
  };
  const procs: AppProcess[] = [];
  return {
    fake,
    llm,
    repo,
    work,
    appEnv,
    async start(command, extra = {}, ready = "aider-bot listening on", main = MAIN) {
      // BENCH_NODE_ARGS adds Node flags to every app process, e.g. "--import=/path/to/profiler-hook.mjs" (NODE_OPTIONS refuses --cpu-prof) to see where its time goes.
      const nodeArgs = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
      const child = spawn(process.execPath, [...nodeArgs, main, ...command], {
        env: { ...appEnv, ...extra },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      // BENCH_APP_LOG=<file> keeps every app process's output there too (with LOG_LEVEL=info, each step's log line).
      const logTo = process.env.BENCH_APP_LOG;
      const keep = (d: Buffer) => {
        out += d.toString();
        if (logTo) appendFileSync(logTo, d);
      };
      child.stdout!.on("data", keep);
      child.stderr!.on("data", keep);
      const deadline = Date.now() + 60_000;
      while (!out.includes(ready)) {
        if (child.exitCode !== null || Date.now() > deadline)
          throw new Error(`aider-bot ${command.join(" ")} did not start:\n${out.slice(-4000)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const proc: AppProcess = {
        child,
        output: () => out,
        async stop(signal = "SIGKILL") {
          if (child.exitCode !== null || child.signalCode !== null) return;
          const exited = new Promise((r) => child.once("exit", r));
          child.kill(signal);
          await exited;
        },
      };
      procs.push(proc);
      return proc;
    },
    async close() {
      for (const p of procs) await p.stop();
      await llm.close();
      await fake.close();
      await rm(work, { recursive: true, force: true });
    },
  };
}

/** p-th percentile (0–100) of a list of numbers, nearest-rank. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
