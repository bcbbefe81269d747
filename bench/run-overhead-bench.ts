/**
 * A run's own overhead (`npm run bench overhead`, issue #15): with a model that answers at once and a trivial test
 * command, the time from POSTing `/aider …` on a pull request to the app being idle again, against the floor of the
 * same change done by hand in this process — a bare `git clone --depth 1`, one commit and a push to the same fake
 * GitHub. Also prints the stage breakdown from the app's logs, how many git processes the run started (a `git` shim
 * first on the app's PATH counts them) and how many times the status comment was written.
 *
 * Repositories: the 4-file demo, and generated TypeScript repositories of 700 and 3,000 files (a warm-up run first,
 * so the map cache is warm as in a long-running App; the figures are medians of the measured runs). The 700-file
 * repository is measured twice: with the repository's git mirror (the default) and with plain clones.
 *
 * `BENCH_BASELINE_APP=<other checkout>/dist/cli/main.js` runs another build beside this one (its runs alternate with
 * this build's, against the same floors) and prints both ratios: a change measured side by side in one run.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createExec } from "../src/exec/create-exec.js";
import { seedPullRequest } from "../testkit/seed-repo.js";
import { sendWebhook } from "../testkit/send-webhook.js";
import { freePort, percentile, startRig, WEBHOOK_SECRET, type Rig } from "./lib/app-rig.js";

/** The repository the runs edit: the demo's sample as it was when this bench was written (TypeScript, a test command that passes at once), so its figures stay comparable. */
const BENCH_FILES: Record<string, string> = {
  "package.json": `{ "name": "widgets", "version": "1.0.0", "type": "module" }\n`,
  "src/fetch-client.ts": [
    "export interface FetchOptions {",
    "  timeoutMs?: number;",
    "}",
    "",
    "export async function getText(url: string, options: FetchOptions = {}): Promise<string> {",
    "  const res = await fetch(url, { signal: AbortSignal.timeout(options.timeoutMs ?? 10_000) });",
    "  if (!res.ok) throw new Error(`GET ${url} failed: ${res.status}`);",
    "  return res.text();",
    "}",
    "",
  ].join("\n"),
  "src/index.ts":
    'import { getText } from "./fetch-client.js";\n\nexport async function main(): Promise<void> {\n  console.log(await getText("https://example.com"));\n}\n',
  ".github/aider.yml": 'test: node -e "process.exit(0)"\nmax_reflections: 2\n',
};

const USER = "maintainer";
/** Timed runs per repository (`BENCH_OVERHEAD_RUNS`, default 3): more for a steadier median on a busy machine. */
const RUNS = Math.max(1, Number(process.env.BENCH_OVERHEAD_RUNS ?? 3) || 3);

function generatedRepo(n: number): Record<string, string> {
  const files: Record<string, string> = { ...BENCH_FILES };
  for (let i = 0; i < n - Object.keys(BENCH_FILES).length; i++) {
    const dir = `src/mod${i % 40}`;
    files[`${dir}/part${i}.ts`] = [
      `import { getText } from "../fetch-client.js";`,
      ``,
      `export interface Part${i}Options { id: number; name: string }`,
      ``,
      `export async function loadPart${i}(options: Part${i}Options): Promise<string> {`,
      `  return getText(\`https://example.com/parts/\${options.id}\`);`,
      `}`,
      ``,
      `export class Part${i}Store {`,
      `  private items = new Map<number, string>();`,
      `  add(id: number, value: string): void { this.items.set(id, value); }`,
      `  get(id: number): string | undefined { return this.items.get(id); }`,
      `}`,
      ``,
    ].join("\n");
  }
  return files;
}

/** Replies for one PR run: the file to add, the edit, the commit message. */
function replies(i: number): string[] {
  return [
    "I need to edit the fetch client:\n\nsrc/fetch-client.ts\n",
    [
      "Add a retries option.",
      "",
      "src/fetch-client.ts",
      "```ts",
      "<<<<<<< SEARCH",
      "  timeoutMs?: number;",
      "=======",
      "  timeoutMs?: number;",
      `  /** Extra attempts after a failure (run ${i}). */`,
      `  retries${i}?: number;`,
      ">>>>>>> REPLACE",
      "```",
    ].join("\n"),
    `feat: add a retries option (run ${i})`,
  ];
}

/**
 * A `git` first on the PATH. Counting, it logs one line per process (start and end in ns, and its arguments) so the
 * bench can say which commands a run started and how long they took. That costs ~17 ms per process here (a shell
 * and two `date` processes), so it counts only while the `flag` file exists, during one extra run after the timed
 * ones; otherwise it hands over to git at once (`exec`, ~3 ms), in the app's runs and the floor's alike.
 */
async function gitShim(dir: string): Promise<{ bin: string; log: string; flag: string }> {
  const bin = path.join(dir, "shim-bin");
  const log = path.join(dir, "git-calls.log");
  const flag = path.join(dir, "git-calls.on");
  await mkdir(bin, { recursive: true });
  const real = (
    await createExec({ sourceEnv: process.env }).run({ command: "sh", args: ["-c", "command -v git"], cwd: dir })
  ).stdout.trim();
  await writeFile(
    path.join(bin, "git"),
    `#!/bin/sh\nif [ -e '${flag}' ]; then\n  s=$(date +%s%N)\n  '${real}' "$@"\n  rc=$?\n  echo "$s $(date +%s%N) $*" >> '${log}'\n  exit $rc\nfi\nexec '${real}' "$@"\n`,
  );
  await chmod(path.join(bin, "git"), 0o755);
  await writeFile(log, "");
  return { bin, log, flag };
}

interface Measured {
  postToIdleMs: number;
  gitProcesses: number;
  /** How many processes of each git subcommand (`ls-files`, `commit`…), and their milliseconds. */
  gitCommands: Record<string, number>;
  gitMs: Record<string, number>;
  /** Each git process of the run in order: its arguments (the runner's own `-c` options left out). */
  gitArgv: string[];
  statusWrites: number;
  stages: Record<string, number>;
}

async function oneRun(
  rig: Rig,
  url: string,
  healthz: string,
  branch: string,
  i: number,
  shimLog: string,
  appOutput: () => string,
): Promise<Measured> {
  const pr = await seedPullRequest(rig.fake, rig.repo, {
    title: `Run ${i}`,
    head: branch,
    user: USER,
    files: { [`notes/run-${i}.md`]: `run ${i}\n` },
  });
  rig.llm.push(...replies(i));
  await writeFile(shimLog, "");
  const callsBefore = rig.fake.state.calls.length;
  const logBefore = appOutput().length;
  const payload = {
    action: "created",
    issue: {
      updated_at: "2026-01-01T00:00:00Z",
      id: pr.number,
      number: pr.number,
      title: pr.title,
      body: "",
      user: { login: USER, id: 77, type: "User" },
      labels: [],
      state: "open",
      pull_request: { url: `${rig.fake.apiUrl}/repos/acme/widgets/pulls/${pr.number}` },
    },
    comment: {
      id: 70_000 + i,
      body: "/aider add a retries option to the fetch client",
      user: { login: USER, id: 77, type: "User" },
      performed_via_github_app: null,
    },
    repository: {
      id: 1,
      node_id: "R_1",
      name: rig.repo.name,
      full_name: "acme/widgets",
      private: false,
      owner: { login: "acme", id: 2, type: "Organization" },
      clone_url: `${rig.fake.webUrl}/acme/widgets.git`,
      html_url: `${rig.fake.webUrl}/acme/widgets`,
      default_branch: rig.repo.defaultBranch,
      // As GitHub detects it: every repository here is TypeScript.
      language: "TypeScript",
    },
    sender: { login: USER, id: 77, type: "User" },
    installation: { id: 1, node_id: "I_1" },
  };
  const t0 = performance.now();
  const sent = await sendWebhook({ url, secret: WEBHOOK_SECRET, event: "issue_comment", payload });
  if (sent.status >= 300) throw new Error(`webhook answered ${sent.status}: ${sent.body}`);
  // Idle = the final status is posted (no running stage left) and the queue is empty. The status is read in this
  // process (the fake GitHub's memory); /healthz is asked only once it is final. Asked every 5 ms for the whole run,
  // the bench's own requests and the app's answers took CPU from the run they timed (the floor pays nothing alike).
  for (;;) {
    const status = rig.repo.comments.find((c) => c.body.includes(`aider-bot:run:${sent.deliveryId} `));
    const final = status && !status.body.includes("⏳");
    const stats = final ? ((await (await fetch(healthz)).json()) as { running?: number; queued?: number }) : null;
    if (stats && !stats.running && !stats.queued) break;
    if (performance.now() - t0 > 300_000) throw new Error(`run ${i} did not finish:\n${appOutput().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const postToIdleMs = performance.now() - t0;
  const status = rig.repo.comments.find((c) => c.body.includes(`aider-bot:run:${sent.deliveryId} `))!;
  if (!status.body.includes("🚀")) throw new Error(`run ${i} did not push:\n${status.body}`);
  const calls = (await readFile(shimLog, "utf8")).split("\n").filter(Boolean);
  const gitProcesses = calls.length;
  const gitCommands: Record<string, number> = {};
  const gitMs: Record<string, number> = {};
  const gitArgv: string[] = [];
  for (const call of calls) {
    const [start = "0", end = "0", ...args] = call.split(" ");
    const sub = subcommand(args.join(" "));
    gitCommands[sub] = (gitCommands[sub] ?? 0) + 1;
    gitMs[sub] = (gitMs[sub] ?? 0) + (Number(end) - Number(start)) / 1e6;
    gitArgv.push(withoutOptions(args.join(" ")).slice(0, 160));
  }
  const statusWrites =
    rig.fake.state.calls.slice(callsBefore).filter((c) => c.method === "PATCH" && c.path.includes("/issues/comments/"))
      .length + 1;
  // Stage durations from the app's structured log lines ({ stage, time }), each until the next one.
  const stages: Record<string, number> = {};
  const lines = appOutput()
    .slice(logBefore)
    .split("\n")
    .filter((l) => l.startsWith("{"));
  // Each stage runs from its own line to the next stage line or the run's end ("run finished"); the log lines in
  // between (GitHub requests, sandbox notes) do not end it.
  let last: { stage: string; time: number } | null = null;
  // "(before cloning)": from the POST (this process's clock, as epoch ms) to the run's first stage line — triage, the
  // queue, the job's tokens and its process's start, none of which the floor has.
  const posted = performance.timeOrigin + t0;
  for (const line of lines) {
    const entry = JSON.parse(line) as { stage?: string; time?: number; msg?: string };
    if (typeof entry.time !== "number" || (!entry.stage && entry.msg !== "run finished")) continue;
    if (entry.stage && !("(before cloning)" in stages)) stages["(before cloning)"] = entry.time - posted;
    if (last) stages[last.stage] = (stages[last.stage] ?? 0) + (entry.time - last.time);
    last = entry.stage ? { stage: entry.stage, time: entry.time } : null;
  }
  if (process.env.BENCH_TRACE) printTrace(t0, calls, rig.fake.state.calls.slice(callsBefore), lines);
  return { postToIdleMs, gitProcesses, gitCommands, gitMs, gitArgv, statusWrites, stages };
}

/**
 * `BENCH_TRACE=1`: one timeline per run, in ms from the POST — the app's log lines, every git process (start and
 * length) and every call the fake GitHub answered — to see where a run's time goes.
 */
function printTrace(
  t0: number,
  gitCalls: string[],
  apiCalls: { method: string; path: string; at?: number }[],
  logLines: string[],
): void {
  const origin = performance.timeOrigin + t0;
  const rows: [number, string][] = [];
  for (const call of gitCalls) {
    const [start = "0", end = "0", ...args] = call.split(" ");
    rows.push([
      Number(start) / 1e6 - origin,
      `git ${subcommand(args.join(" "))} (${Math.round((Number(end) - Number(start)) / 1e6)} ms)`,
    ]);
  }
  for (const c of apiCalls) if (c.at) rows.push([c.at - origin, `api ${c.method} ${c.path}`]);
  for (const line of logLines) {
    const e = JSON.parse(line) as { time?: number; msg?: string; stage?: string; ms?: number };
    if (typeof e.time === "number")
      rows.push([
        e.time - origin,
        `log ${e.msg ?? ""}${e.stage ? ` [${e.stage}]` : ""}${typeof e.ms === "number" ? ` (${e.ms} ms)` : ""}`,
      ]);
  }
  rows.sort((a, b) => a[0] - b[0]);
  console.log(rows.map(([ms, what]) => `${String(Math.round(ms)).padStart(6)}  ${what}`).join("\n"));
}

/** The git subcommand of a logged command line: the first word after the global `-c key=value` options. */
export function subcommand(line: string): string {
  const words = line.split(" ");
  let i = 0;
  while (words[i] === "-c" || words[i] === "-C") i += 2;
  return words[i] ?? "";
}

/** A logged command line from its subcommand on (the global `-c key=value` options left out). */
export function withoutOptions(line: string): string {
  const words = line.split(" ");
  let i = 0;
  while (words[i] === "-c" || words[i] === "-C") i += 2;
  return words.slice(i).join(" ");
}

/**
 * The floor: what the same change costs done by hand against the same fake GitHub. Its checkout's removal after
 * the push is not in it (the target's floor is a bare clone + commit + push), but it is timed apart (`removeMs`): the
 * app's run removes its checkout before it is idle, so that figure says how much of the gap is cleaning up.
 */
async function floorRun(
  rig: Rig,
  branch: string,
  i: number,
  shimBin: string,
): Promise<{ ms: number; removeMs: number }> {
  // The same PATH as the app's, so both pay the shim's hand-over.
  const exec = createExec({ sourceEnv: { ...process.env, PATH: `${shimBin}:${process.env.PATH ?? ""}` } });
  const token = `bench-floor-token-${i}`;
  rig.fake.state.issuedTokens.push(token);
  const dir = await mkdtemp(path.join(os.tmpdir(), "bench-floor-"));
  const auth = [
    "-c",
    `http.extraHeader=Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`,
  ];
  const git = async (...args: string[]) => {
    const r = await exec.run({
      command: "git",
      args: [...auth, "-c", "user.name=b", "-c", "user.email=b@example.com", ...args],
      cwd: dir,
    });
    if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.output}`);
  };
  const t0 = performance.now();
  await git("clone", "-q", "--depth", "1", "-b", branch, `${rig.fake.webUrl}/acme/widgets.git`, ".");
  const file = path.join(dir, "src/fetch-client.ts");
  await writeFile(
    file,
    (await readFile(file, "utf8")).replace(
      "  timeoutMs?: number;",
      `  timeoutMs?: number;\n  retriesFloor${i}?: number;`,
    ),
  );
  await git("commit", "-q", "-am", `feat: floor ${i}`);
  await git("push", "-q", "origin", `HEAD:refs/heads/${branch}`);
  const ms = performance.now() - t0;
  const t1 = performance.now();
  await rm(dir, { recursive: true, force: true });
  return { ms, removeMs: performance.now() - t1 };
}

async function benchRepo(
  label: string,
  files: Record<string, string>,
  appEnv: Record<string, string> = {},
): Promise<void> {
  const rig = await startRig({
    // `baseline: off`: base runs (the checks on the base commit, run beside the model's first answer) are a separate,
    // parallel cost, not this run's fixed one; they are neither timed nor counted here.
    files: { ...files, ".github/aider.yml": 'test: "true"\nmax_reflections: 1\nbaseline: off\n' },
    permissions: { [USER]: "write" },
  });
  try {
    const shim = await gitShim(rig.work);
    const startApp = async (main?: string, own: Record<string, string> = {}) => {
      const port = await freePort();
      const app = await rig.start(
        ["serve"],
        {
          PORT: String(port),
          LOG_LEVEL: process.env.BENCH_TRACE ? "debug" : "info",
          LOG_FORMAT: "json",
          PATH: `${shim.bin}:${rig.appEnv.PATH}`,
          // The repository's commands in bubblewrap, as on a host without a container engine. With `auto` and a
          // working podman but no reachable registry (this machine, CI), every run tried to pull the default image,
          // its test check could not run, and the run took the checks-failing path (the commit made after the
          // coder): no longer an ordinary run. Container start-up is measured by `npm run bench checks`.
          AIDER_BOT_SANDBOX: "bubblewrap",
          ...appEnv,
          ...own,
        },
        undefined,
        main,
      );
      return {
        output: app.output,
        url: `http://127.0.0.1:${port}/api/github/webhooks`,
        healthz: `http://127.0.0.1:${port}/healthz`,
      };
    };
    const app = await startApp();
    // BENCH_BASELINE_APP: another build's dist/cli/main.js, run against the same fake GitHub, model and floors, its
    // runs alternating with this build's (each with its own work, queue and cache folders), so a change's effect is
    // measured side by side in one run rather than across runs minutes apart on a shared machine.
    const baselineMain = process.env.BENCH_BASELINE_APP;
    const baseline = baselineMain
      ? await (async () => {
          const own = (name: string) => path.join(rig.work, `baseline-${name}`);
          await mkdir(own("jobs"), { recursive: true });
          return startApp(path.resolve(baselineMain), {
            AIDER_BOT_WORK_DIR: own("jobs"),
            AIDER_BOT_DATA_DIR: own("queue"),
            AIDER_BOT_CACHE_DIR: own("cache"),
          });
        })()
      : null;
    const runs: Measured[] = [];
    const baselineRuns: Measured[] = [];
    const floors: number[] = [];
    const removals: number[] = [];
    let counted: Measured | null = null;
    // Requests arrive apart, not back to back: the app has finished its own work from the last run (the next job
    // process starts as the last one ends, ~1 s of start-up) when the next webhook comes.
    const pause = () => new Promise((r) => setTimeout(r, 1_500));
    for (let i = 0; i <= RUNS + 1; i++) {
      // The baseline build's runs (numbered apart, on branches of their own), first on every other round.
      const baselineRun = async () => {
        if (!baseline || i > RUNS) return;
        if (i > 0) await pause();
        const m = await oneRun(
          rig,
          baseline.url,
          baseline.healthz,
          `feature-${i}-baseline`,
          1000 + i,
          shim.log,
          baseline.output,
        );
        if (i > 0) baselineRuns.push(m);
      };
      if (i % 2 === 1) await baselineRun();
      if (i > 0) await pause();
      // The last run counts git processes (see gitShim) and is not timed.
      if (i === RUNS + 1) await writeFile(shim.flag, "");
      const m = await oneRun(rig, app.url, app.healthz, `feature-${i}`, i, shim.log, app.output);
      if (i === RUNS + 1) counted = m;
      else if (i > 0) runs.push(m); // run 0 warms the map cache and the workers, as a long-running App is
      if (i % 2 === 0) await baselineRun();
      if (i <= RUNS) {
        const floored = await floorRun(rig, `feature-${i}`, i, shim.bin);
        floors.push(floored.ms);
        removals.push(floored.removeMs);
      }
    }
    const med = (xs: number[]) => percentile(xs, 50);
    const post = med(runs.map((r) => r.postToIdleMs));
    const floor = med(floors.slice(1));
    console.log(`\n## Run overhead — ${label} (${Object.keys(files).length} files; median of ${RUNS} warm runs)`);
    console.log(
      "(an ordinary PR run: checks in bubblewrap, `baseline: off` — base runs happen in parallel and are neither timed nor counted here)",
    );
    console.log(
      `POST → idle: ${Math.round(post)} ms   floor (clone --depth 1 + commit + push): ${Math.round(floor)} ms   ratio ${(post / floor).toFixed(2)}× (target ≤ 1.3×; ≤ 1.5 s on ~700 files)`,
    );
    console.log(
      `(the floor's own checkout removal, after its push and not in the floor: ${Math.round(med(removals.slice(1)))} ms median)`,
    );
    const last = counted!;
    console.log(
      `git processes per run: ${last.gitProcesses} (target ≤ 8)   status comment writes: ${med(runs.map((r) => r.statusWrites))} (target ≤ ~6)`,
    );
    console.log(
      `git commands of the counting run (count, ms incl. the shim's ~17 ms each): ${Object.entries(last.gitCommands)
        .map(([k, v]) => `${k} ${v} ${Math.round(last.gitMs[k] ?? 0)}`)
        .join(" · ")}`,
    );
    console.log(
      `git processes of the counting run, in order:\n${last.gitArgv.map((a, n) => `  ${n + 1}. git ${a}`).join("\n")}`,
    );
    const stages = (of: Measured[]) =>
      [...new Set(of.flatMap((r) => Object.keys(r.stages)))]
        .map((s) => `${s} ${Math.round(med(of.map((r) => r.stages[s] ?? 0)))}`)
        .join(" · ");
    console.log(`stages (median ms): ${stages(runs)}`);
    const list = (of: Measured[]) => of.map((r) => Math.round(r.postToIdleMs)).join(" ");
    if (baselineRuns.length) {
      const then = med(baselineRuns.map((r) => r.postToIdleMs));
      console.log(
        `baseline build (${baselineMain}), same floors, runs alternating with this build's:\n  POST → idle: ${Math.round(then)} ms   ratio ${(then / floor).toFixed(2)}×   (this build: ${Math.round(post)} ms, ${(post / floor).toFixed(2)}×; this/baseline ${(post / then).toFixed(2)})\n  stages (median ms): ${stages(baselineRuns)}\n  each run, POST → idle (ms): this build ${list(runs)}; baseline ${list(baselineRuns)}; floors ${floors
          .slice(1)
          .map(Math.round)
          .join(" ")}`,
      );
    }
  } finally {
    await rig.close();
  }
}

/** All three repositories, or only one: `demo`, `700` or `3000` (`npx tsx bench/run-all.ts overhead 700`). */
export async function runOverheadBench(only?: string): Promise<void> {
  if (!only || only === "demo") await benchRepo("4-file demo", BENCH_FILES);
  if (!only || only === "700" || only === "700-mirror") await benchRepo("generated, 700 files", generatedRepo(700));
  if (!only || only === "700") {
    // The same without the repository's git mirror: what the mirror saves, against a floor of the same moments.
    await benchRepo("generated, 700 files, plain clones (AIDER_BOT_GIT_MIRRORS=0)", generatedRepo(700), {
      AIDER_BOT_GIT_MIRRORS: "0",
    });
  }
  if (!only || only === "3000") await benchRepo("generated, 3,000 files", generatedRepo(3000));
}
