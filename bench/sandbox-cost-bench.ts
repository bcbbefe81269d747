/**
 * `npm run bench sandbox-cost [-- --cases clsx-56ab81f,sqlparse-f66d12c --command "npm install" --runs 5
 * --cache cold|warm|both --ways host,bwrap,bot-open,bot]`: what a repository's own command costs in the bot's sandbox
 * against the host, on a replay case's checkout (bench/replay/bundles), the ways run in turn in every round:
 *
 * - `host`: `sh -c` on the host with the replay judge's environment (a home of its own, npm's cache in it);
 * - `bwrap`: the same command and environment in a bare bubblewrap (the host's network, the checkout and home bound):
 *   the cost of the namespaces and mounts alone;
 * - `bot-open`: the bot's own path — `runCheckCommand` through the job's check exec (`createCheckExec`: its sandbox,
 *   home, temp, package cache and environment), with the `open` network policy;
 * - `bot`: the same with the default `registries` policy (the egress proxy between the command and the registry).
 *
 * The bot's ways set up the first command's sandbox ahead as a run does (`prestart` once the check exec knows the
 * repository, see src/exec/sandbox-ahead.ts); `--lead-ms N` waits N ms (not counted) between that and the first
 * command, as a run's map, model round and apply do (default 0: the command comes at once).
 *
 * `--compare <dir>` adds `bot@other` (and `bot-open@other` when `bot-open` is asked for): the same through another
 * build's `src/` (a checkout of an earlier commit, say), for a before/after in one run.
 *
 * Each way has its own caches: `cold` gives every run fresh ones, `warm` keeps them across runs after one unmeasured
 * run (the bot's package cache is one repository's, kept from job to job, its home the job's own). The checkout is
 * reset (`git clean -fdxq`) before every run, as a fresh clone is. Prints each way's median and its ratio to the
 * host's, measured side by side in the same run.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { createCheckExec } from "../src/app/create-check-exec.js";
import { checkRequestShape, runCheckCommand } from "../src/checks/run-check-command.js";
import { readEnv } from "../src/config/env.js";
import { createExec } from "../src/exec/create-exec.js";
import { sandboxProblem } from "../src/exec/sandbox.js";
import type { Exec } from "../src/exec/types.js";
import { bundlePath, readManifest, type ReplayCase } from "./replay/replay-case.js";
import { judgeEnv } from "./replay/run-replay.js";

const WAYS = ["host", "bwrap", "bot-open", "bot"] as const;
type Way = (typeof WAYS)[number] | "bot@other" | "bot-open@other";

interface Args {
  cases: string[];
  command?: string;
  runs: number;
  cache: ("cold" | "warm")[];
  ways: Way[];
  compare?: string;
  leadMs: number;
}

export function parseSandboxCostArgs(argv: readonly string[]): Args {
  const args: Args = { cases: ["clsx-56ab81f"], runs: 5, cache: ["cold", "warm"], ways: [...WAYS], leadMs: 0 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    i++;
    if (flag === "--cases") args.cases = value.split(",").filter(Boolean);
    else if (flag === "--command") args.command = value;
    else if (flag === "--compare") args.compare = path.resolve(value);
    else if (flag === "--runs") args.runs = Math.max(1, Number(value) || 1);
    else if (flag === "--lead-ms") args.leadMs = Math.max(0, Number(value) || 0);
    else if (flag === "--cache") args.cache = value === "both" ? ["cold", "warm"] : [value as "cold" | "warm"];
    else if (flag === "--ways") {
      const ways = value.split(",");
      const bad = ways.filter((w) => !(WAYS as readonly string[]).includes(w));
      if (bad.length) throw new Error(`--ways: unknown ${bad.join(", ")} (known: ${WAYS.join(", ")})`);
      args.ways = ways as Way[];
    } else throw new Error(`unknown option ${flag}`);
  }
  if (args.compare) {
    if (args.ways.includes("bot-open")) args.ways.push("bot-open@other");
    if (args.ways.includes("bot")) args.ways.push("bot@other");
  }
  return args;
}

/** The commands the bot ran for the case in the replay bench: npm's install and test, or pytest as the stand-in. */
function defaultCommands(c: ReplayCase): { kind: "setup" | "test"; command: string }[] {
  if (c.ecosystem === "node")
    return [
      { kind: "setup", command: "npm install" },
      { kind: "test", command: "npm test" },
    ];
  if (c.ecosystem === "python") return [{ kind: "test", command: "python3 -m pytest tests/" }];
  return c.judge.test.map((command) => ({ kind: "test" as const, command }));
}

export async function runSandboxCostBench(argv: readonly string[]): Promise<void> {
  const args = parseSandboxCostArgs(argv);
  const exec = createExec({ sourceEnv: process.env });
  const problem = await sandboxProblem(exec);
  if (problem) {
    console.log(`sandbox-cost: skipped (${problem})`);
    return;
  }
  const manifest = await readManifest();
  const root = await mkdtemp(path.join(os.tmpdir(), "sandbox-cost-"));
  console.log(
    `sandbox-cost: ${args.runs} runs per way, ways in turn each round (${args.ways.join(", ")}); load ${os.loadavg()[0]!.toFixed(1)}`,
  );
  try {
    for (const id of args.cases) {
      const c = manifest.cases.find((k) => k.id === id);
      if (!c) throw new Error(`--cases: no case ${id}`);
      const checkout = path.join(root, "work", "checkouts", id);
      await mkdir(path.dirname(checkout), { recursive: true });
      await run(exec, "git", ["clone", "-q", "-b", "replay", bundlePath(c), checkout], root);
      await run(exec, "git", ["checkout", "-q", "HEAD^"], checkout);
      const commands = args.command ? [{ kind: "setup" as const, command: args.command }] : defaultCommands(c);
      for (const cache of args.cache) await measureCase(exec, root, c, checkout, commands, cache, args);
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

async function measureCase(
  exec: Exec,
  root: string,
  c: ReplayCase,
  checkout: string,
  commands: { kind: "setup" | "test"; command: string }[],
  cache: "cold" | "warm",
  args: Args,
): Promise<void> {
  const times = new Map<string, number[]>();
  const warmDirs = new Map<Way, string>();
  const dirsFor = async (way: Way, round: number) => {
    if (cache === "warm" && warmDirs.has(way)) return warmDirs.get(way)!;
    const dir = path.join(root, "caches", `${c.id}-${way}-${cache}-${round}`);
    await mkdir(dir, { recursive: true });
    if (cache === "warm") warmDirs.set(way, dir);
    return dir;
  };
  // Warm: round 0 fills each way's caches and is not counted.
  const first = cache === "warm" ? 0 : 1;
  for (let round = first; round <= args.runs; round++) {
    const order = args.ways.map((_, i) => args.ways[(i + round) % args.ways.length]!);
    for (const way of order) {
      await run(exec, "git", ["clean", "-fdxq"], checkout);
      const dir = await dirsFor(way, round);
      const ms = await oneRun(way, exec, root, checkout, dir, commands, c, args);
      if (round === 0) continue;
      commands.forEach((k, i) => {
        const key = `${k.command}\u0000${way}`;
        times.set(key, [...(times.get(key) ?? []), ms[i]!]);
      });
    }
    if (cache === "cold")
      for (const way of args.ways) await rm(await dirsFor(way, round), { recursive: true, force: true });
  }
  for (const k of commands) {
    const host = median(times.get(`${k.command}\u0000host`) ?? []);
    console.log(`\n${c.id} · \`${k.command}\` · caches ${cache} · load ${os.loadavg()[0]!.toFixed(1)}`);
    for (const way of args.ways) {
      const all = times.get(`${k.command}\u0000${way}`) ?? [];
      const m = median(all);
      const ratio = args.ways.includes("host") && way !== "host" ? `  ${(m / host).toFixed(2)}× host` : "";
      // Milliseconds where the command is short (`--command true`: the sandbox's start is all there is to see).
      const fmt = (t: number) => (m < 1000 ? `${Math.round(t)}` : (t / 1000).toFixed(2));
      console.log(
        `  ${way.padEnd(14)} ${fmt(m).padStart(6)} ${m < 1000 ? "ms" : "s"}${ratio.padEnd(13)}  (${all.map(fmt).join(", ")})`,
      );
    }
  }
}

/** Each command's milliseconds, run one way; throws with the output when one fails. */
async function oneRun(
  way: Way,
  exec: Exec,
  root: string,
  checkout: string,
  cacheDir: string,
  commands: { kind: "setup" | "test"; command: string }[],
  c: ReplayCase,
  args: Pick<Args, "compare" | "leadMs">,
): Promise<number[]> {
  const ms: number[] = [];
  if (way === "host" || way === "bwrap") {
    const home = path.join(cacheDir, "home");
    await mkdir(home, { recursive: true });
    const env = { ...judgeEnv(home), CI: "true" };
    for (const k of commands) {
      const argv = ["/bin/sh", "-c", k.command];
      const req =
        way === "host"
          ? { command: argv[0]!, args: argv.slice(1) }
          : {
              command: "bwrap",
              args: [
                ...["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"],
                ...["--bind", home, home, "--bind", checkout, checkout, "--chdir", checkout],
                ...["--unshare-all", "--share-net", "--die-with-parent", "--new-session"],
                ...argv,
              ],
            };
      const t = performance.now();
      const r = await exec.run({ ...req, cwd: checkout, env, timeoutMs: 600_000 });
      ms.push(performance.now() - t);
      if (r.exitCode !== 0)
        throw new Error(`${way}: \`${k.command}\` failed (${r.exitCode}):\n${r.output.slice(-2000)}`);
    }
    return ms;
  }
  const m = way.endsWith("@other") ? await otherBuild(args.compare!) : { createCheckExec, runCheckCommand, readEnv };
  const checkExec = m.createCheckExec(
    m.readEnv({
      PATH: process.env.PATH,
      AIDER_BOT_SANDBOX: "bubblewrap",
      AIDER_BOT_SANDBOX_NETWORK: way.startsWith("bot-open") ? "open" : "registries",
      AIDER_BOT_WORK_DIR: path.join(root, "work"),
      AIDER_BOT_CACHE_DIR: cacheDir,
    }),
    exec,
    pino({ level: "silent" }),
    { appDir: root },
  );
  try {
    // As a run does once it knows the repository: the package cache is this repository's folder under the cache dir.
    checkExec.useContainer?.({ image: "-", imageSource: "-", checkout, cacheKey: c.repo });
    // As the run's coder does once the repository is known (a build without it has no `prestart`).
    checkExec.prestart?.(checkRequestShape(checkout));
    if (args.leadMs) await new Promise((resolve) => setTimeout(resolve, args.leadMs));
    for (const k of commands) {
      const t = performance.now();
      const r = await m.runCheckCommand(checkExec, { ...k, cwd: checkout, timeoutMs: 600_000, ciShell: true });
      ms.push(performance.now() - t);
      if (!r.ok) throw new Error(`${way}: \`${k.command}\` failed:\n${r.output.slice(-2000)}`);
    }
  } finally {
    await checkExec.close?.();
  }
  return ms;
}

async function run(exec: Exec, command: string, args: string[], cwd: string): Promise<void> {
  const r = await exec.run({ command, args, cwd });
  if (r.exitCode !== 0) throw new Error(`${command} ${args.join(" ")} failed: ${r.output}`);
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The bot's modules from another build's `src/` (`--compare`). */
async function otherBuild(dir: string): Promise<{
  createCheckExec: typeof createCheckExec;
  runCheckCommand: typeof runCheckCommand;
  readEnv: typeof readEnv;
}> {
  const from = async <T>(file: string): Promise<T> => (await import(path.join(dir, "src", file))) as T;
  return {
    ...(await from<{ createCheckExec: typeof createCheckExec }>("app/create-check-exec.ts")),
    ...(await from<{ runCheckCommand: typeof runCheckCommand }>("checks/run-check-command.ts")),
    ...(await from<{ readEnv: typeof readEnv }>("config/env.ts")),
  };
}
