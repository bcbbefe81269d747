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

/** Waits (a bounded number of turns) until `seen()` holds; true if it did. */
async function eventually(seen: () => boolean, turns = 2_000): Promise<boolean> {
  for (let i = 0; i < turns && !seen(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  return seen();
}

describe("container mode's devcontainer", () => {
  let fake: FakeGitHub;
  let llm: ScriptedLlmServer;
  let work: string;
  beforeEach(async () => {
    fake = await startFakeGitHub({ sourceEnv: process.env, exec: testExec({ sourceEnv: process.env }) });
    llm = await startScriptedLlmServer();
    work = await mkdtemp(path.join(os.tmpdir(), "devcontainer-while-cloning-"));
  });
  afterEach(async () => {
    await llm.close();
    await fake.close();
    await rm(work, { recursive: true, force: true });
  });

  it("is read from the default branch while the branch is cloned, and names the image the commands use", async () => {
    const repo = await seedRepo(fake, {
      owner: "acme",
      name: "widgets",
      files: {
        "src/fetch-client.ts": "export interface FetchOptions {\n  timeoutMs?: number;\n}\n",
        ".devcontainer/devcontainer.json": '{ "image": "mcr.microsoft.com/devcontainers/typescript-node:20" }\n',
      },
      permissions: { ann: "write" },
    });
    const pr = await seedPullRequest(fake, repo, {
      title: "Notes",
      head: "feature",
      user: "ann",
      files: { "notes/run.md": "run\n" },
    });
    const token = "ghs_devcontainer_while_cloning";
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
    llm.push("Nothing to change.", "Nothing to change.");
    const config = parseRepoConfig({ max_reflections: 1, baseline: "off" });
    if (!config.ok) throw new Error("config");
    const settings = resolveSettings(config.config, {}, { model: "gpt-4o" });
    if (!settings.ok) throw new Error("settings");
    const env = readEnv({
      PATH: process.env.PATH,
      AIDER_BOT_WORK_DIR: path.join(work, "jobs"),
      AIDER_BOT_CACHE_DIR: path.join(work, "cache"),
      AIDER_BOT_SANDBOX: "bubblewrap",
    });
    const devcontainerRead = () => fake.state.calls.some((c) => c.path.includes("devcontainer"));
    // The git process that writes the work tree (the mirror's read-tree, or a plain clone) finishes only once the
    // devcontainer has been asked for, or after a bounded wait that the assertion below then reports.
    let readWhileCloning: boolean | null = null;
    const inner = testExec({ sourceEnv: process.env });
    const exec = {
      ...inner,
      run: async (req: ExecRequest) => {
        const out = await inner.run(req);
        if (
          req.command === "git" &&
          readWhileCloning === null &&
          (req.args ?? []).some((a) => a === "read-tree" || a === "clone")
        )
          readWhileCloning = await eventually(devcontainerRead);
        return out;
      },
    } as Exec;
    const targets: { image: string }[] = [];
    const checkExec = {
      ...testExec({ sourceEnv: process.env }),
      useContainer: (t: { image: string }) => void targets.push(t),
    } as Exec;
    const head = (await api.rest.pulls.get({ owner: "acme", repo: "widgets", pull_number: pr.number })).data.head;
    await executeRun(
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
          message: "tidy the fetch client",
          requester: { login: "ann", id: 3 },
          settings: settings.value,
        }),
        statusCommentId: status.data.id,
        reactTo: { kind: "issue", number: pr.number },
        webUrl: `${fake.webUrl}/acme/widgets`,
        command: "aider",
      },
      {
        env: { ...env, defaultImage: "debian:12" },
        settings: driverSettings(env, "app"),
        exec,
        checkExec,
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
    expect(readWhileCloning).toBe(true);
    expect(targets.map((t) => t.image)).toEqual(["mcr.microsoft.com/devcontainers/typescript-node:20"]);
    expect(fake.state.calls.filter((c) => c.path.includes("devcontainer"))).toHaveLength(1);
  });
});
