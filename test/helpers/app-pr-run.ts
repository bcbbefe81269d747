import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Octokit } from "@octokit/rest";
import { pino } from "pino";
import { cacheRootOf, executeRun, mirrorPlace } from "../../src/app/execute-run.js";
import { createGit } from "../../src/workspace/create-git.js";
import { driverSettings } from "../../src/compose/run-settings.js";
import { readEnv } from "../../src/config/env.js";
import { parseRepoConfig } from "../../src/config/repo-config.js";
import type { Exec } from "../../src/exec/types.js";
import type { GitHubClient } from "../../src/github/github-client.js";
import { createLlmClient } from "../../src/llm/create-llm-client.js";
import { resolveSettings } from "../../src/run/prepare/resolve-settings.js";
import { createSecretRedactor } from "../../src/security/redact-secrets.js";
import { prTarget, runRequest } from "../../testkit/builders/run-fixtures.js";
import { startScriptedLlmServer, type ScriptedLlmServer } from "../../testkit/scripted-llm-server.js";
import { seedPullRequest, seedRepo } from "../../testkit/seed-repo.js";
import { startFakeGitHub, type FakeGitHub } from "../../testkit/start-fake-github.js";
import { testExec } from "./test-exec.js";

/** The fake GitHub, the scripted model and a work folder, fresh for each test of the describe block that uses it. */
export interface AppPrRig {
  fake: FakeGitHub;
  llm: ScriptedLlmServer;
  work: string;
}

/** Call inside `describe`: a fresh {@link AppPrRig} before each test, closed after it. */
export function useAppPrRig(prefix: string): () => AppPrRig {
  let rig: AppPrRig | null = null;
  beforeEach(async () => {
    const fake = await startFakeGitHub({ sourceEnv: process.env, exec: testExec({ sourceEnv: process.env }) });
    const llm = await startScriptedLlmServer();
    rig = { fake, llm, work: await mkdtemp(path.join(os.tmpdir(), prefix)) };
  });
  afterEach(async () => {
    await rig?.llm.close();
    await rig?.fake.close();
    if (rig) await rm(rig.work, { recursive: true, force: true });
    rig = null;
  });
  return () => rig!;
}

export interface AppPrRunOptions {
  /** The default branch's files of `acme/widgets`; the pull request (head `feature`, by ann) adds `notes/run.md`. */
  files: Record<string, string>;
  /** The repository config the run is resolved with. */
  config: Record<string, unknown>;
  message: string;
  /** git's processes and the app's own. */
  exec: Exec;
  /** The repository's commands. */
  checkExec: Exec;
  /** Environment entries beside the work and cache folders (bubblewrap by default). */
  env?: Record<string, string>;
  /**
   * The branch fetched into the repository's mirror ahead of the run, as the App does at triage (app/mirror-prefetch),
   * through this exec (not the run's): the run's checkout is made from that fetch.
   */
  fetchAhead?: Exec;
}

/**
 * One real App run (`executeRun`: clone, coder, commit, publish) on a pull request of the fake GitHub, with a status
 * comment already "queued" as triage leaves it. The model's answers are pushed on `rig.llm` by the caller.
 */
export async function runAppOnPullRequest(rig: AppPrRig, o: AppPrRunOptions) {
  const { fake, llm, work } = rig;
  const repo = await seedRepo(fake, { owner: "acme", name: "widgets", files: o.files, permissions: { ann: "write" } });
  const pr = await seedPullRequest(fake, repo, {
    title: "Notes",
    head: "feature",
    user: "ann",
    files: { "notes/run.md": "run\n" },
  });
  const token = `ghs_app_pr_run_${pr.number}`;
  fake.state.issuedTokens.push(token);
  const quiet = () => undefined;
  const api = new Octokit({
    baseUrl: fake.apiUrl,
    auth: token,
    log: { debug: quiet, info: quiet, warn: quiet, error: quiet },
  }) as unknown as GitHubClient;
  const status = await api.rest.issues.createComment({
    owner: "acme",
    repo: "widgets",
    issue_number: pr.number,
    body: "⏳ queued",
  });
  const config = parseRepoConfig(o.config);
  if (!config.ok) throw new Error(`config: ${config.problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`);
  const settings = resolveSettings(config.config, {}, { model: "gpt-4o" });
  if (!settings.ok) throw new Error("settings");
  const env = readEnv({
    PATH: process.env.PATH,
    AIDER_BOT_WORK_DIR: path.join(work, "jobs"),
    AIDER_BOT_CACHE_DIR: path.join(work, "cache"),
    AIDER_BOT_SANDBOX: "bubblewrap",
    ...o.env,
  });
  const head = (await api.rest.pulls.get({ owner: "acme", repo: "widgets", pull_number: pr.number })).data.head;
  const cloneUrl = `${fake.webUrl}/acme/widgets.git`;
  const req = runRequest({
    owner: "acme",
    repo: "widgets",
    cloneUrl,
    target: prTarget({ number: pr.number, headRef: "feature", headSha: head.sha, headCloneUrl: cloneUrl }),
    message: o.message,
    requester: { login: "ann", id: 3 },
    settings: settings.value,
  });
  const logger = pino({ level: "silent" });
  const place = o.fetchAhead ? mirrorPlace(req, { env, logger }, cacheRootOf(env)) : null;
  const fetched = place
    ? createGit(o.fetchAhead!).fetchIntoMirror({ url: cloneUrl, branch: "feature", token }, place)
    : null;
  return executeRun(
    {
      req,
      statusCommentId: status.data.id,
      reactTo: { kind: "issue", number: pr.number },
      webUrl: `${fake.webUrl}/acme/widgets`,
      command: "aider",
    },
    {
      env,
      settings: driverSettings(env, "app"),
      exec: o.exec,
      checkExec: o.checkExec,
      llm: createLlmClient({
        baseUrl: llm.baseUrl,
        apiKey: "sk-model-key",
        redact: createSecretRedactor().redact,
        sleep: async () => undefined,
      }),
      api,
      gitToken: async () => token,
      bot: { login: "aider-bot[bot]", email: "1+aider-bot[bot]@users.noreply.github.com" },
      logger,
      signal: new AbortController().signal,
      redactor: createSecretRedactor(),
      ...(fetched ? { mirrorFetched: () => fetched } : {}),
    },
  );
}
