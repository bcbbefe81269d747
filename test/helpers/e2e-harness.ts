import { spawn, type ChildProcess } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { createServer } from "node:net";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sendWebhook } from "../../testkit/send-webhook.js";
import { startFakeGitHub, type FakeGitHub } from "../../testkit/start-fake-github.js";
import { pushCommit, seedIssue, seedPullRequest, seedRepo } from "../../testkit/seed-repo.js";
import type { FakeIssue, FakeRepo } from "../../testkit/fake-github-state.js";
import { TEST_APP_KEY } from "./build-once.js";
import { CLI_MAIN } from "./cli-entry.js";
import { WAIT_MS } from "./timeouts.js";
import { pollUntil, waitUntil } from "./wait-until.js";
import {
  startScriptedLlmServer,
  type ScriptedLlmServer,
  type ScriptedReply,
} from "../../testkit/scripted-llm-server.js";
import { has } from "./needs.js";
import { testExec } from "./test-exec.js";
import type {
  IssueCommentCreatedEvent,
  IssueCommentEditedEvent,
  IssuesLabeledEvent,
  Repository,
  User,
  WebhookEventMap,
  WebhookEventName,
} from "@octokit/webhooks-types";
import {
  exampleApp,
  exampleInstallation,
  exampleLabel,
  examplePayload,
  exampleUser,
} from "../../testkit/builders/webhook-payloads.js";

const SECRET = "e2e-webhook-secret";

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export {
  exampleApp,
  exampleInstallation,
  exampleLabel,
  examplePayload,
  exampleUser,
} from "../../testkit/builders/webhook-payloads.js";

export interface E2E {
  fake: FakeGitHub;
  llm: ScriptedLlmServer;
  repo: FakeRepo;
  logs(): string;
  webhookUrl: string;
  secret: string;
  /** The App's private key (PEM) the app was started with. */
  privateKey: string;
  /** The app's HOME, which also holds its cache dir (and its work dir unless the env names another). */
  home: string;
  sourceEnv: NodeJS.ProcessEnv;
  /** The app's installation token(s) as issued by the fake. */
  tokens(): string[];
  pr(spec: { title: string; head: string; user: string; files: Record<string, string> }): Promise<FakeIssue>;
  issue(spec: { title: string; body: string; user: string; labels?: string[] }): FakeIssue;
  /** Deliver `event` signed as GitHub does; the payload is typed as GitHub sends that event. */
  send<E extends WebhookEventName>(
    event: E,
    payload: WebhookEventMap[E],
    opts?: { deliveryId?: string; signature?: string },
  ): Promise<{ status: number; deliveryId: string }>;
  /** The scenario's repository as its webhooks name it. */
  repository(): Repository;
  commentPayload(
    issue: FakeIssue,
    body: string,
    user: string,
    opts?: { userType?: User["type"]; commentId?: number },
  ): IssueCommentCreatedEvent;
  /**
   * `user` edits the bot's comment `commentId` to `body` as on GitHub (e.g. ticks a task-list box): the fake stores the
   * new body, and the returned `issue_comment.edited` payload carries the old one in `changes.body.from`.
   */
  editPayload(issue: FakeIssue, commentId: number, body: string, user: string): IssueCommentEditedEvent;
  /** `user` adds `label` to `issue` (an `issues.labeled` delivery). */
  labelPayload(issue: FakeIssue, label: string, user: string): IssuesLabeledEvent;
  /** Push a commit with these files to a branch as a human would (bypassing the bot). */
  pushAs(branch: string, files: Record<string, string>): Promise<void>;
  /** Wait until the app's queue is empty (after a webhook was accepted). */
  idle(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface ScenarioSpec {
  files: Record<string, string>;
  permissions: Record<string, string>;
  replies?: ScriptedReply[];
}

/** One started app (with its fake GitHub and scripted model) that several tests of a file share, one scenario each. */
export interface E2EApp {
  /** A fresh repository (its own name, so no state of an earlier scenario applies) and this scenario's model replies. */
  scenario(spec: ScenarioSpec): Promise<E2E>;
  /** With `workers`: the worker processes' logs so far, one string each. */
  workerLogs(): string[];
  /** With `workers`: send worker `i` a signal and wait until it has exited. */
  stopWorker(i: number, signal: NodeJS.Signals): Promise<void>;
  /** Send the app process a signal and wait until it has exited (its work and data dirs are kept). */
  stop(signal: NodeJS.Signals): Promise<void>;
  /** Start the app process again on the same work and data dirs (after {@link E2EApp.stop}), and wait until it listens. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The environment of a test app whose flow is not about the sandbox: the repositories it serves are the test's own
 * fixtures (trusted), so their check commands run unsandboxed, and the flow is the same on a machine without
 * bubblewrap as on one with it. Tests of the sandbox itself leave it on (secret-leak, least-privilege, exec/).
 */
export const UNSANDBOXED: Readonly<Record<string, string>> = { AIDER_BOT_SANDBOX: "off" };

/**
 * For a flow whose check commands should run as in production where they can: in bubblewrap where it runs on this
 * machine, and unsandboxed (the fixtures are the test's own) where it does not, so the flow is tested there too.
 */
export const sandboxWherePresent = (): Readonly<Record<string, string>> => (has("bubblewrap") ? {} : UNSANDBOXED);

/**
 * End-to-end rig: a fake GitHub (REST + git smart-HTTP) and a scripted model on 127.0.0.1, and the real, built app
 * started as its own process (`aider-bot serve`) pointed at them through GHE_HOST — no mocks inside the app. Starting
 * the app is the expensive part, so a test file starts it once (beforeAll) and runs each test as a scenario on it.
 */
export async function startE2EApp(
  options: {
    env?: Record<string, string>;
    first?: ScenarioSpec;
    privateKeyPath?: string;
    workers?: { redisUrl: string; count: number };
    spare?: boolean;
  } = {},
): Promise<E2EApp> {
  const sourceEnv = process.env;
  const fake = await startFakeGitHub({ sourceEnv, exec: testExec({ sourceEnv }) });
  const llm = await startScriptedLlmServer(options.first?.replies ?? []);
  let scenarios = 0;
  const seed = (spec: ScenarioSpec) => {
    const name = ++scenarios === 1 ? "widgets" : `widgets-${scenarios}`;
    return seedRepo(fake, { owner: "acme", name, files: spec.files, permissions: spec.permissions });
  };
  // What the app reads at start (the schedules of installed repositories) must be there before it starts.
  let preseeded = options.first ? await seed(options.first) : undefined;
  // The run's one test key (jest's global setup, build-once.js), or a new one when the harness runs without it.
  const privateKey =
    (await readFile(TEST_APP_KEY, "utf8").catch(() => undefined)) ??
    generateKeyPairSync("rsa", {
      modulusLength: 2048,
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
      publicKeyEncoding: { type: "spki", format: "pem" },
    }).privateKey;
  const port = await freePort();
  const work = await mkdtemp(path.join(os.tmpdir(), "e2e-app-"));
  const host = new URL(fake.apiUrl).host;
  // With privateKeyPath the key is a file (PRIVATE_KEY_PATH), as in most deployments, instead of PRIVATE_KEY.
  if (options.privateKeyPath) {
    await mkdir(path.dirname(options.privateKeyPath), { recursive: true });
    await writeFile(options.privateKeyPath, privateKey, { mode: 0o600 });
  }
  const key = options.privateKeyPath ? { PRIVATE_KEY_PATH: options.privateKeyPath } : { PRIVATE_KEY: privateKey };
  const appEnv: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: work,
    LANG: "C.UTF-8",
    APP_ID: "1",
    ...key,
    WEBHOOK_SECRET: SECRET,
    GHE_HOST: host,
    GHE_PROTOCOL: "http",
    PORT: String(port),
    HOST: "127.0.0.1",
    LOG_LEVEL: "debug",
    LOG_FORMAT: "json",
    AIDER_BOT_THROTTLE: "0",
    OPENAI_BASE_URL: llm.baseUrl,
    OPENAI_API_KEY: "sk-e2e-model-key",
    AIDER_BOT_MODEL: "gpt-4o",
    AIDER_BOT_CACHE_DIR: path.join(work, "cache"),
    AIDER_BOT_WORK_DIR: work,
    AIDER_BOT_DATA_DIR: path.join(work, "queue"),
    NO_SMEE_SETUP: "true",
    // `auto` would pick Podman where it works, and its default image cannot be pulled here (no registry): the e2e
    // suites run repository commands in bubblewrap unless a test asks for a container (secret-leak, container-mode).
    AIDER_BOT_SANDBOX: "bubblewrap",
    // No job process kept started ahead (a second Node process, ~1 s of CPU, wasted when the file's app is killed),
    // except where a test asks for it: app-flows runs its jobs through the spare, as production does.
    ...(options.spare ? {} : { AIDER_BOT_SPARE: "0" }),
    ...options.env,
    // Scaled out: this process only receives; the workers (below) run the jobs.
    ...(options.workers ? { REDIS_URL: options.workers.redisUrl, AIDER_BOT_ROLE: "receiver" } : {}),
  };
  let out = "";
  let child!: ChildProcess;
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const stop = async (signal: NodeJS.Signals) => {
    if (exited()) return;
    const gone = new Promise((r) => child.once("exit", r));
    child.kill(signal);
    await gone;
  };
  const workers: { child: ChildProcess; out: string }[] = [];
  const stopWorker = async (i: number, signal: NodeJS.Signals) => {
    const w = workers[i]!.child;
    if (w.exitCode !== null || w.signalCode !== null) return;
    const gone = new Promise((r) => w.once("exit", r));
    w.kill(signal);
    await gone;
  };
  const close = async () => {
    for (let i = 0; i < workers.length; i++) await stopWorker(i, "SIGKILL");
    await stop("SIGKILL");
    await llm.close();
    await fake.close();
    await rm(work, { recursive: true, force: true });
  };
  const launch = async () => {
    child = spawn(process.execPath, [CLI_MAIN, "serve"], { env: appEnv, stdio: ["ignore", "pipe", "pipe"] });
    const from = out.length;
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    const listening = () => out.slice(from).includes("aider-bot listening on");
    if (!(await pollUntil(() => listening() || exited())) || !listening()) {
      await close();
      throw new Error(`the app did not start within ${WAIT_MS} ms:\n${out.slice(from)}`);
    }
  };
  await launch();
  for (let i = 0; i < (options.workers?.count ?? 0); i++) {
    // A worker gets no webhook secret and no port: it only runs jobs from the shared queue, in its own work dir.
    const { WEBHOOK_SECRET: _secret, AIDER_BOT_ROLE: _role, ...workerEnv } = appEnv;
    const w = {
      child: spawn(process.execPath, [CLI_MAIN, "worker"], {
        env: { ...workerEnv, AIDER_BOT_WORK_DIR: path.join(work, `worker-${i}`) },
        stdio: ["ignore", "pipe", "pipe"],
      }),
      out: "",
    };
    w.child.stdout!.on("data", (d: Buffer) => (w.out += d.toString()));
    w.child.stderr!.on("data", (d: Buffer) => (w.out += d.toString()));
    workers.push(w);
    const ready = () => w.out.includes("aider-bot worker ready");
    if (!(await pollUntil(() => ready() || w.child.exitCode !== null)) || !ready()) {
      await close();
      throw new Error(`worker ${i} did not start within ${WAIT_MS} ms:\n${w.out}`);
    }
  }
  const base = `http://127.0.0.1:${port}`;
  const idle = async (timeoutMs = WAIT_MS) => {
    const quiet = async () => {
      const stats = (await (await fetch(`${base}/healthz`)).json()) as { running: number; queued: number };
      return stats.running === 0 && stats.queued === 0;
    };
    await waitUntil(quiet, () => `jobs still running\n${out.slice(-4000)}`, timeoutMs);
  };
  let commentIds = 500;
  const scenario = async (spec: ScenarioSpec): Promise<E2E> => {
    let repo = preseeded;
    preseeded = undefined;
    if (!repo) {
      // A scenario starts from a quiet app: nothing queued, and no model reply or request left from the one before.
      await idle();
      if (llm.remaining() > 0)
        throw new Error(`the previous scenario left ${llm.remaining()} scripted model replies unused`);
      llm.requests.length = 0;
      fake.gitRequests.length = 0;
      llm.push(...(spec.replies ?? []));
      repo = await seed(spec);
    }
    const repoJson = (): Repository => ({
      ...examplePayload("issue_comment", "created").repository,
      name: repo.name,
      full_name: `${repo.owner}/${repo.name}`,
      owner: exampleUser(repo.owner),
      clone_url: `${fake.webUrl}/${repo.owner}/${repo.name}.git`,
      html_url: `${fake.webUrl}/${repo.owner}/${repo.name}`,
      default_branch: repo.defaultBranch,
      // The scenarios' repositories mix languages: none is named, so no job warms a grammar its files may not use.
      language: null,
    });
    return {
      fake,
      llm,
      repo,
      webhookUrl: `${base}/api/github/webhooks`,
      secret: SECRET,
      privateKey,
      home: work,
      sourceEnv,
      logs: () => [out, ...workers.map((w) => w.out)].join("\n"),
      tokens: () => fake.state.issuedTokens,
      pr: (s) => seedPullRequest(fake, repo, s),
      pushAs: (branch, files) => pushCommit(fake, repo, branch, files),
      issue: (s) => seedIssue(fake, repo, s),
      send: (event, payload, opts = {}) =>
        sendWebhook({ url: `${base}/api/github/webhooks`, secret: SECRET, event, payload, ...opts }),
      repository: repoJson,
      labelPayload(issue, label, user) {
        const p = examplePayload("issues", "labeled");
        const { pull_request: _none, ...exampleIssue } = p.issue;
        return {
          ...p,
          repository: repoJson(),
          installation: exampleInstallation(1),
          issue: {
            ...exampleIssue,
            number: issue.number,
            title: issue.title,
            body: issue.body,
            labels: issue.labels.map(exampleLabel),
            updated_at: "2026-11-01T10:00:00Z",
          },
          label: exampleLabel(label),
          sender: exampleUser(user, { id: 9, type: "User" }),
        };
      },
      commentPayload(issue, body, user, opts = {}) {
        const p = examplePayload("issue_comment", "created");
        const { pull_request: _none, ...exampleIssue } = p.issue;
        const sender = exampleUser(user, { id: 100 + user.length, type: opts.userType ?? "User" });
        return {
          ...p,
          repository: repoJson(),
          installation: exampleInstallation(1),
          issue: {
            ...exampleIssue,
            number: issue.number,
            title: issue.title,
            body: issue.body,
            user: exampleUser(issue.user),
            labels: [],
            ...(issue.pull
              ? { pull_request: { url: `${fake.apiUrl}/repos/${repo.owner}/${repo.name}/pulls/${issue.number}` } }
              : {}),
          },
          comment: {
            ...p.comment,
            id: opts.commentId ?? ++commentIds,
            body,
            user: sender,
            performed_via_github_app: null,
          },
          sender,
        };
      },
      editPayload(issue, commentId, body, user) {
        const stored = repo.comments.find((c) => c.id === commentId);
        if (!stored) throw new Error(`no comment ${commentId} in ${repo.owner}/${repo.name}`);
        const from = stored.body;
        stored.body = body;
        stored.updatedAt = new Date().toISOString();
        const p = (this as E2E).commentPayload(issue, body, user, { commentId });
        const bot = stored.user.endsWith("[bot]");
        return {
          ...p,
          action: "edited",
          changes: { body: { from } },
          // The comment is the bot's (made by the App); the sender is the person who edited it.
          comment: {
            ...p.comment,
            user: exampleUser(stored.user, { id: 1, type: bot ? "Bot" : "User" }),
            performed_via_github_app: bot ? exampleApp(1, stored.user.replace(/\[bot\]$/, "")) : null,
          },
        };
      },
      idle,
      // The app outlives the scenario; the file's afterAll closes it.
      close: async () => undefined,
    };
  };
  return {
    scenario,
    workerLogs: () => workers.map((w) => w.out),
    stopWorker,
    stop,
    restart: async () => {
      if (!exited()) throw new Error("restart() needs the app stopped first (stop(signal))");
      await launch();
    },
    close,
  };
}

/**
 * How many times job processes logged entering `stage` so far (their "stage" lines, in `logs`). A test that must act
 * while a stage runs (kill, cancel) waits on this rather than on the status comment, which shows a stage up to 3 s
 * late (its edits are coalesced).
 */
export const stagesEntered = (logs: string, stage: string): number => logs.split(`"stage":"${stage}"`).length - 1;

/** One app for one scenario (a test that needs its own app environment, e.g. a short schedule sync). */
export async function startE2E(
  spec: ScenarioSpec & { env?: Record<string, string>; privateKeyPath?: string },
): Promise<E2E> {
  const app = await startE2EApp({
    env: spec.env,
    first: spec,
    ...(spec.privateKeyPath ? { privateKeyPath: spec.privateKeyPath } : {}),
  });
  try {
    const e2e = await app.scenario(spec);
    return { ...e2e, close: app.close };
  } catch (error) {
    await app.close();
    throw error;
  }
}
