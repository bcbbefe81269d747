/**
 * One replay run: a case seeded on the fake GitHub, `/aider --edit-format F --file … <subject>` posted on its pull
 * request, the real app driven until idle with the oracle model answering, then judged — the pushed tree's source
 * files against the real commit, and the repository's own tests run on the pushed tree (on the host, timed: the
 * repository's own setup + test time the bot's time is compared with), and the repository's CI commands as the bot
 * ran them, once, on the host (the second measure: see ci-commands).
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createExec } from "../../src/exec/create-exec.js";
import type { FakeGitHub } from "../../testkit/start-fake-github.js";
import {
  isCommitMessageRequest,
  type ReplyFunction,
  type ScriptedLlmServer,
} from "../../testkit/scripted-llm-server.js";
import type { EditFormatName } from "../../src/edits/types.js";
import { noiseFor, type Noise } from "./render-answer.js";
import { oracleRun } from "./oracle.js";
import { seedCase, type ReplayCase } from "./replay-case.js";
import { checksRanIn, runIdOf, timeCiCommands, type CiTime } from "./ci-commands.js";
import type { CheckRan } from "../../src/run/run-outcome.js";
import type { Variant } from "./replay-args.js";
import type { CacheState } from "./replay-plan.js";

/** What a replay run needs of a running app (the bench's rig, or the e2e harness). */
export interface ReplayApp {
  fake: FakeGitHub;
  llm: ScriptedLlmServer;
  send(event: string, payload: unknown): Promise<{ status: number; deliveryId: string }>;
  /** Resolves once the app has no job running or queued. */
  idle(): Promise<void>;
  /**
   * The app's log so far (JSON lines): where a run's check commands are read from, to time them once on the host
   * (see ci-commands). Absent: that second measure is not taken.
   */
  appLog?(): string;
  /** How long the oracle takes to answer each model request (see replay-args' `--model-latency-ms`); absent: 0. */
  modelLatencyMs?: number;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export type { Variant } from "./replay-args.js";

export interface ReplayResult {
  id: string;
  repo: string;
  ecosystem: string;
  format: EditFormatName;
  variant: Variant;
  /** The run was its repository name's first in the bench (caches empty) or a later one (caches kept). */
  cache: CacheState;
  noise: Noise | null;
  /** The pushed tree's source files equal the real commit's, and its tests pass. */
  solved: boolean;
  /** The source files equal the real commit's only when trailing whitespace is ignored. */
  whitespaceOnly: boolean;
  pushed: boolean;
  testsPass: boolean;
  /** The pushed source files equal the real commit's (modulo trailing whitespace). */
  sourceEqual: boolean;
  /** Model answers the run asked for (commit-message requests not counted). */
  rounds: number;
  /** POST → idle: the whole job, a base command finishing after the answer included (its slot's cost). */
  botMs: number;
  /** POST → the run's Check Run concluded: when the user has the answer (the status and push come with it). */
  answeredMs?: number;
  setupMs: number;
  testMs: number;
  /**
   * The repository's CI commands as the bot found and ran them (setup, lint, test), run once on the host after the
   * run, on a fresh clone of what it pushed: their time, and whether all passed. Absent when not measured (no app log,
   * no check ran).
   */
  ci?: { ms: number; ok: boolean; commands: number; tail: string };
  /** The manifest's documented reason why this case's checks cannot all run here, if any. */
  note?: string;
  /** Why it is unsolved, in a few words (the differing files, the failing tests, the status headline). */
  why: string;
  /** The bot ran the repository's tests and they passed on what it pushed (its status says no "No tests ran"). */
  checked: boolean;
  /** What the status comment says of the repository's checks (its "Checks:" line, or that no tests ran). */
  checks: string;
  status: string;
}

const USER = "maintainer";
let runs = 0;
const repositoryIds = new Map<string, number>();

/** The status comment's one-line account of the checks: its "🧪 Checks:" line, or its "No tests ran" warning. */
export const checksLine = (status: string) => {
  const line =
    status.split("\n").find((l) => l.startsWith("🧪")) ?? status.split("\n").find((l) => l.includes("No tests ran"));
  return (line ?? "no checks named").replace(/^🧪 Checks: /, "").slice(0, 120);
};

/** The status comment's headline (its first line with words), for the printed table. */
const headline = (status: string) =>
  status
    .split("\n")
    .find((l) => /[A-Za-z]/.test(l) && !l.startsWith("<!--"))
    ?.slice(0, 160) ?? "";

export async function runReplay(
  app: ReplayApp,
  c: ReplayCase,
  format: EditFormatName,
  variant: Variant,
  seed: number,
  /** The folder of the judges' homes: one per repository name, made here. */
  judgeHome: string,
  /** The repository's name on the fake (see replay-plan); by default one of the run's own, caches cold. */
  repository?: { name: string; cache: CacheState },
): Promise<ReplayResult> {
  ++runs;
  const name = repository?.name ?? `${c.id}-${format}-${variant}-${runs}`;
  // The installation's own account (the rig seeds acme/widgets first): a token names only its account's repositories.
  const seeded = await seedCase(app.fake, c, { owner: "acme", name, user: USER });
  const changes = [...seeded.wanted].map(([p, wanted]) => ({ path: p, now: seeded.before.get(p) ?? null, wanted }));
  const noise = variant === "noisy" ? noiseFor(format, changes, seed) : null;
  const oracle = oracleRun(format, seeded.wanted, noise);
  app.llm.clear();
  // A real model takes seconds to write: the oracle's answer comes that long after the request (--model-latency-ms).
  const latency = app.modelLatencyMs ?? 0;
  app.llm.push(
    ...oracle.replies.map((reply): ReplyFunction =>
      latency > 0 ? (request) => ({ after: delay(latency), reply: reply(request) }) : reply,
    ),
  );
  const files = seeded.existing.map((f) => `--file ${quote(f)}`).join(" ");
  const body = `/aider --edit-format ${format} ${files} ${seeded.subject}`;
  const requestsBefore = app.llm.requests.length;
  // This run's Check Run is the first one created after the command (a warm run's repository has its earlier runs').
  const checkRunsBefore = seeded.repo.checkRuns.length;
  const t0 = performance.now();
  const sent = await app.send(
    "issue_comment",
    commentPayload(app.fake, seeded.repo.owner, name, seeded.pr, body, GITHUB_LANGUAGE[c.ecosystem]),
  );
  if (sent.status >= 300) throw new Error(`the webhook was answered ${sent.status}`);
  // The answer's moment, watched while the job runs on (its base may finish a command after it).
  let answeredMs: number | undefined;
  const concluded = () => seeded.repo.checkRuns.slice(checkRunsBefore).some((r) => r.conclusion);
  const watch = setInterval(() => {
    if (answeredMs === undefined && concluded()) answeredMs = performance.now() - t0;
  }, 20);
  try {
    await app.idle();
  } finally {
    clearInterval(watch);
  }
  const botMs = performance.now() - t0;
  if (answeredMs === undefined && concluded()) answeredMs = botMs;
  app.llm.clear();
  const status =
    seeded.repo.comments.filter((x) => x.issueNumber === seeded.pr.number && x.user.endsWith("[bot]")).at(-1)?.body ??
    "";
  const rounds = app.llm.requests.slice(requestsBefore).filter((r) => !isCommitMessageRequest(r.body)).length;
  // The judge's home is the repository's, as the bot's package caches are: a repository's first run is cold for both
  // (one home shared by every case let a Go case's judge reuse the standard library another case's judge compiled).
  const home = path.join(judgeHome, name);
  await mkdir(home, { recursive: true });
  const judged = await judge(app.fake, seeded.repo, c, seeded.wanted, home);
  const runId = runIdOf(status);
  const checks = app.appLog && runId ? checksRanIn(app.appLog(), runId) : null;
  const ci = checks?.length ? await timeCi(app.fake, seeded.repo, c, checks, home) : null;
  const solved = judged.sourceEqual && judged.testsPass;
  const why = solved
    ? ""
    : [
        judged.differs.length ? `differs: ${judged.differs.join(", ")}` : "",
        judged.testsPass ? "" : `tests fail: ${judged.testTail}`,
        headline(status),
      ]
        .filter(Boolean)
        .join(" · ");
  return {
    id: c.id,
    repo: c.repo,
    ecosystem: c.ecosystem,
    format,
    variant,
    cache: repository?.cache ?? "cold",
    noise,
    solved,
    whitespaceOnly: judged.whitespaceOnly,
    pushed: judged.pushed,
    testsPass: judged.testsPass,
    sourceEqual: judged.sourceEqual,
    rounds,
    botMs,
    ...(answeredMs !== undefined ? { answeredMs } : {}),
    setupMs: judged.setupMs,
    testMs: judged.testMs,
    ...(ci && checks ? { ci: { ...ci, commands: checks.length } } : {}),
    why,
    ...(c.note ? { note: c.note } : {}),
    checks: checksLine(status),
    checked: status.includes("✅") && !status.includes("No tests ran") && !status.includes("still fails"),
    status,
  };
}

const quote = (p: string) => (/^[\w./-]+$/.test(p) ? p : `"${p.replace(/"/g, '\\"')}"`);

/**
 * The judge's verdicts by case and pushed tree. The same tree passes or fails the same tests, and most runs of a case
 * push the same tree (the real commit's), so after two real runs of a tree — the second with the judge's caches warm,
 * as the bot's are by then — its verdict and times are reused: the full matrix runs the repository's tests about
 * once per case instead of ten times.
 */
const judged = new Map<
  string,
  { runs: number; tests: { testsPass: boolean; testTail: string; setupMs: number; testMs: number } }
>();

/** CI's commands' times by case, pushed tree and command list, reused after two runs (as the judge's are). */
const ciTimed = new Map<string, { runs: number; time: CiTime }>();

/**
 * The run's own check commands, run once on the host in a fresh clone of the pushed branch (see ci-commands), with a
 * home of their own (`<judge home>/.ci`), kept across the bench's runs like the judge's: their caches warm up alike,
 * not from the judge's run of the same tree a moment before (a repository's first run is cold for both).
 */
async function timeCi(
  fake: FakeGitHub,
  repo: { owner: string; name: string },
  c: ReplayCase,
  checks: readonly CheckRan[],
  home: string,
): Promise<CiTime> {
  const exec = createExec({ sourceEnv: process.env });
  const dir = await mkdtemp(path.join(os.tmpdir(), "replay-ci-"));
  try {
    await clonePushed(exec, fake, repo, dir);
    const tree = await exec.run({ command: "git", args: ["rev-parse", "HEAD^{tree}"], cwd: dir });
    const key = `${c.id}:${tree.stdout.trim()}:${JSON.stringify(checks)}`;
    const known = ciTimed.get(key);
    if (known && known.runs >= 2) return known.time;
    const ciHome = path.join(home, ".ci");
    await mkdir(ciHome, { recursive: true });
    const env = { ...judgeEnv(ciHome), CARGO_TARGET_DIR: path.join(dir, ".replay-target"), CI: "true" };
    const time = await timeCiCommands(exec, dir, checks, env);
    ciTimed.set(key, { runs: (known?.runs ?? 0) + 1, time });
    return time;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The pushed branch (`pr`) of the fake's repository, cloned into `dir`. */
async function clonePushed(
  exec: ReturnType<typeof createExec>,
  fake: FakeGitHub,
  repo: { owner: string; name: string },
  dir: string,
): Promise<void> {
  const bare = fake.bareDir(repo as Parameters<FakeGitHub["bareDir"]>[0]);
  const cloned = await exec.run({ command: "git", args: ["clone", "-q", "-b", "pr", bare, dir], cwd: os.tmpdir() });
  if (cloned.exitCode !== 0) throw new Error(`cloning the pushed branch failed: ${cloned.output}`);
}

/** The pushed branch cloned from the fake, its source files compared and its tests run on the host. */
async function judge(
  fake: FakeGitHub,
  repo: { owner: string; name: string },
  c: ReplayCase,
  wanted: ReadonlyMap<string, string | null>,
  home: string,
) {
  const exec = createExec({ sourceEnv: process.env });
  const dir = await mkdtemp(path.join(os.tmpdir(), "replay-judge-"));
  try {
    await clonePushed(exec, fake, repo, dir);
    const log = await exec.run({ command: "git", args: ["log", "--format=%an", "-1"], cwd: dir });
    const pushed = log.stdout.trim() !== "Replay Bench";
    const differs: string[] = [];
    let whitespaceOnly = false;
    for (const [file, text] of wanted) {
      const got = await exec.run({ command: "git", args: ["show", `HEAD:${file}`], cwd: dir });
      const now = got.exitCode === 0 ? got.stdout : null;
      if (now === text) continue;
      if (now !== null && text !== null && squash(now) === squash(text)) whitespaceOnly = true;
      else differs.push(file);
    }
    const tree = await exec.run({ command: "git", args: ["rev-parse", "HEAD^{tree}"], cwd: dir });
    const key = `${c.id}:${tree.stdout.trim()}`;
    const known = judged.get(key);
    if (known && known.runs >= 2)
      return { pushed, differs, whitespaceOnly, sourceEqual: differs.length === 0, ...known.tests };
    const env = { ...judgeEnv(home), CARGO_TARGET_DIR: path.join(dir, ".replay-target"), CI: "true" };
    let setupMs = 0;
    let ok = true;
    let tail = "";
    for (const command of c.judge.setup) {
      const t = performance.now();
      const r = await exec.run({ command, shell: true, cwd: dir, env, timeoutMs: 600_000 });
      setupMs += performance.now() - t;
      if (r.exitCode !== 0) {
        ok = false;
        tail = `setup \`${command}\`: ${lastLine(r.output)}`;
        break;
      }
    }
    let testMs = 0;
    for (const command of ok ? c.judge.test : []) {
      const t = performance.now();
      const r = await exec.run({ command, shell: true, cwd: dir, env, timeoutMs: 600_000 });
      testMs += performance.now() - t;
      if (r.exitCode !== 0) {
        ok = false;
        tail = `\`${command}\`: ${lastLine(r.output)}`;
        break;
      }
    }
    const tests = { testsPass: ok, testTail: tail, setupMs, testMs };
    judged.set(key, { runs: (known?.runs ?? 0) + 1, tests });
    return { pushed, differs, whitespaceOnly, sourceEqual: differs.length === 0, ...tests };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The judge's environment: a home of its own, kept across the bench's runs as the bot's package caches are (so both
 * start cold and warm up alike), with the host's toolchain managers (rustup, pyenv) still found where they live.
 */
export function judgeEnv(home: string): Record<string, string> {
  const real = os.homedir();
  const keep = (name: string, dir: string) =>
    process.env[name]
      ? { [name]: process.env[name]! }
      : existsSync(path.join(real, dir))
        ? { [name]: path.join(real, dir) }
        : {};
  return {
    HOME: home,
    GOCACHE: path.join(home, "go-build"),
    GOPATH: path.join(home, "go"),
    npm_config_cache: path.join(home, "npm"),
    ...keep("RUSTUP_HOME", ".rustup"),
    ...keep("CARGO_HOME", ".cargo"),
    ...keep("PYENV_ROOT", ".pyenv"),
  };
}

/** Text with trailing whitespace of every line and trailing blank lines dropped. */
const squash = (text: string) => text.replace(/[ \t]+$/gm, "").replace(/\n+$/, "");

const lastLine = (output: string) =>
  output
    .trim()
    .split("\n")
    .filter((l) => l.trim())
    .slice(-2)
    .join(" ⏎ ")
    .slice(0, 200);

/**
 * The main language GitHub names for a case's repository (`repository.language`, which every real webhook carries and
 * a run warms its grammar and the map's tag query for while cloning), by the case's ecosystem.
 */
const GITHUB_LANGUAGE: Record<ReplayCase["ecosystem"], string> = {
  node: "JavaScript",
  python: "Python",
  go: "Go",
  rust: "Rust",
  c: "C",
  perl: "Perl",
};

/** An `issue_comment.created` payload for `body` on the pull request, as GitHub sends it. */
function commentPayload(
  fake: FakeGitHub,
  owner: string,
  name: string,
  pr: { number: number; title: string },
  body: string,
  language: string,
) {
  const user = { login: USER, id: 77, type: "User" };
  // One repository, one id across runs (GitHub's is fixed for its life): a shared name is one repository to the app.
  const repoId = repositoryIds.get(name) ?? 1000 + repositoryIds.size;
  repositoryIds.set(name, repoId);
  return {
    action: "created",
    issue: {
      id: pr.number,
      number: pr.number,
      title: pr.title,
      body: "",
      user,
      labels: [],
      state: "open",
      updated_at: new Date().toISOString(),
      pull_request: { url: `${fake.apiUrl}/repos/${owner}/${name}/pulls/${pr.number}` },
    },
    comment: { id: 90_000 + runs, body, user, performed_via_github_app: null },
    repository: {
      id: repoId,
      node_id: `R_${repoId}`,
      name,
      full_name: `${owner}/${name}`,
      private: false,
      owner: { login: owner, id: 2, type: "Organization" },
      clone_url: `${fake.webUrl}/${owner}/${name}.git`,
      html_url: `${fake.webUrl}/${owner}/${name}`,
      default_branch: "main",
      language,
    },
    sender: user,
    installation: { id: 1, node_id: "I_1" },
  };
}
