import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Octokit } from "@octokit/rest";
import { pino } from "pino";
import { executeRun } from "../../src/app/execute-run.js";
import { driverSettings } from "../../src/compose/run-settings.js";
import { readEnv } from "../../src/config/env.js";
import { parseRepoConfig } from "../../src/config/repo-config.js";
import { seedPullRequest, seedRepo } from "../../testkit/seed-repo.js";
import { startFakeGitHub, type FakeGitHub } from "../../testkit/start-fake-github.js";
import type { Exec, ExecRequest } from "../../src/exec/types.js";
import type { GitHubClient } from "../../src/github/github-client.js";
import { createLlmClient } from "../../src/llm/create-llm-client.js";
import { resolveSettings } from "../../src/run/prepare/resolve-settings.js";
import { startScriptedLlmServer, type ScriptedLlmServer } from "../../testkit/scripted-llm-server.js";
import { testExec } from "../helpers/test-exec.js";
import { prTarget, runRequest } from "../../testkit/builders/run-fixtures.js";
import { createSecretRedactor } from "../../src/security/redact-secrets.js";

/** The fixed cost of an ordinary pull-request run, in git processes (see `npm run bench overhead`). */
const MAX_GIT_PROCESSES = 8;

/** An exec that records the arguments of every `git` process started through it. */
function countingExec(inner: Exec, calls: string[][]): Exec {
  return {
    ...inner,
    run: (req: ExecRequest) => {
      if (req.command === "git") calls.push([...(req.args ?? [])]);
      return inner.run(req);
    },
  } as Exec;
}

/** A git command line from its subcommand on (the runner's `-c key=value` options left out). */
function shown(args: readonly string[]): string {
  let i = 0;
  while (args[i] === "-c") i += 2;
  return args.slice(i).join(" ");
}

describe("an ordinary pull-request run's git processes", () => {
  let fake: FakeGitHub;
  let llm: ScriptedLlmServer;
  let work: string;
  beforeEach(async () => {
    fake = await startFakeGitHub({ sourceEnv: process.env, exec: testExec({ sourceEnv: process.env }) });
    llm = await startScriptedLlmServer();
    work = await mkdtemp(path.join(os.tmpdir(), "run-git-processes-"));
  });
  afterEach(async () => {
    await llm.close();
    await fake.close();
    await rm(work, { recursive: true, force: true });
  });

  it(`clone, map, commit and publish in at most ${MAX_GIT_PROCESSES} git processes`, async () => {
    const files: Record<string, string> = {
      "package.json": '{ "name": "widgets", "type": "module" }\n',
      "src/fetch-client.ts": "export interface FetchOptions {\n  timeoutMs?: number;\n}\n",
      ".github/aider.yml": 'test: "true"\nmax_reflections: 1\n',
    };
    for (let i = 0; i < 30; i++) files[`src/mod${i % 4}/part${i}.ts`] = `export const part${i} = ${i};\n`;
    const repo = await seedRepo(fake, { owner: "acme", name: "widgets", files, permissions: { ann: "write" } });
    const pr = await seedPullRequest(fake, repo, {
      title: "Notes",
      head: "feature",
      user: "ann",
      files: { "notes/run.md": "run\n" },
    });
    const token = "ghs_run_git_processes";
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
    llm.push(
      "I need to edit the fetch client:\n\nsrc/fetch-client.ts\n",
      "Add a retries option.\n\nsrc/fetch-client.ts\n```ts\n<<<<<<< SEARCH\n  timeoutMs?: number;\n=======\n  timeoutMs?: number;\n  retries?: number;\n>>>>>>> REPLACE\n```\n",
      "feat: add a retries option",
    );
    // Base runs (the checks on the base commit, beside the model's first answer) are a separate, parallel cost: off.
    const config = parseRepoConfig({ test: "true", max_reflections: 1, baseline: "off" });
    if (!config.ok) throw new Error("config");
    const settings = resolveSettings(config.config, {}, { model: "gpt-4o" });
    if (!settings.ok) throw new Error("settings");
    const env = readEnv({
      PATH: process.env.PATH,
      AIDER_BOT_WORK_DIR: path.join(work, "jobs"),
      AIDER_BOT_CACHE_DIR: path.join(work, "cache"),
      AIDER_BOT_SANDBOX: "bubblewrap",
    });
    const calls: string[][] = [];
    const exec = countingExec(testExec({ sourceEnv: process.env }), calls);
    const head = (await api.rest.pulls.get({ owner: "acme", repo: "widgets", pull_number: pr.number })).data.head;
    const outcome = await executeRun(
      {
        req: runRequest({
          owner: "acme",
          repo: "widgets",
          cloneUrl: `${fake.webUrl}/acme/widgets.git`,
          target: prTarget({
            number: pr.number,
            headRef: "feature",
            headSha: head.sha,
            headCloneUrl: `${fake.webUrl}/acme/widgets.git`,
          }),
          message: "add a retries option to the fetch client",
          requester: { login: "ann", id: 3 },
          settings: settings.value,
        }),
        statusCommentId: status.data.id,
        reactTo: { kind: "issue", number: pr.number },
        webUrl: `${fake.webUrl}/acme/widgets`,
        command: "aider",
      },
      {
        env,
        settings: driverSettings(env, "app"),
        exec,
        // The repository's commands are not git's: they run through an exec of their own, uncounted.
        checkExec: testExec({ sourceEnv: process.env }),
        llm: createLlmClient({
          baseUrl: llm.baseUrl,
          apiKey: "sk-model-key",
          redact: createSecretRedactor().redact,
          sleep: async () => undefined,
        }),
        api,
        gitToken: async () => token,
        bot: { login: "aider-bot[bot]", email: "1+aider-bot[bot]@users.noreply.github.com" },
        logger: pino({ level: "silent" }),
        signal: new AbortController().signal,
        redactor: createSecretRedactor(),
      },
    );
    expect(outcome.kind).toBe("pushed");
    const list = calls.map(shown);
    // The list is in the message, so a regression says which process came back.
    if (list.length > MAX_GIT_PROCESSES)
      throw new Error(`${list.length} git processes (at most ${MAX_GIT_PROCESSES}):\n${list.join("\n")}`);
    expect(list.length).toBeLessThanOrEqual(MAX_GIT_PROCESSES);
  });
});
