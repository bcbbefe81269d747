import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { branchLog, fileOnBranch, seedIssue, seedPullRequest, seedRepo } from "../../testkit/seed-repo.js";
import type { FakeRepo } from "../../testkit/fake-github-state.js";
import { startFakeGitHub, type FakeGitHub } from "../../testkit/start-fake-github.js";
import {
  startScriptedLlmServer,
  type ScriptedLlmServer,
  type ScriptedReply,
} from "../../testkit/scripted-llm-server.js";
import { testExec } from "../helpers/test-exec.js";
import { exampleLabel, examplePayload, exampleUser } from "../helpers/e2e-harness.js";
import { WAIT_MS } from "../helpers/timeouts.js";
import { pollUntil } from "../helpers/wait-until.js";

const ROOT = path.resolve(".");
const MAIN = path.join(ROOT, "dist/cli/main.js");
/** The entry the next `runAction` starts: dist/ (what the composite action builds), or a release bundle. */
let entry = MAIN;
const BOT = "github-actions[bot]";
const TOKEN = "ghs_workflowtoken0123456789";
const MODEL_KEY = "sk-action-model-key";
const files = {
  "src/calc.py": "def add(a, b):\n    return a - b\n",
  "README.md": "# widgets\n",
  // The repository's tests note where they ran (HOME is the runner's, outside any checkout).
  // They also show whether a variable passed with `pass-env`, or a secret of the action, reached them.
  ".github/aider.yml":
    'test: echo "$(pwd) ${SERVICE_URL:-none} ${INPUT_OPENAI_API_KEY:-none}${INPUT_GITHUB_TOKEN:-}" >> "$HOME/test-runs.txt"\n',
};
const fix =
  "src/calc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```\n";

/** One run spawns the CLI, clones, maps and pushes: the harness's wait, under jest's own limit. */
const RUN_MS = WAIT_MS * 3;
const sourceEnv = process.env;
const exec = testExec({ sourceEnv });

async function run(command: string, args: string[], cwd: string): Promise<string> {
  const r = await exec.run({ command, args, cwd });
  if (r.exitCode !== 0) throw new Error(`${command} ${args.join(" ")} failed: ${r.output}`);
  return r.stdout.trim();
}

// dist/ is built once for the whole suite by jest's globalSetup (test/helpers/build-once.js), as the composite
// action's first step does with `npm run build`.

interface Rig {
  fake: FakeGitHub;
  llm: ScriptedLlmServer;
  repo: FakeRepo;
  dir: string;
  workspace: string;
  close(): Promise<void>;
}

async function startRig(replies: ScriptedReply[], extraConfig = ""): Promise<Rig> {
  const fake = await startFakeGitHub({ botLogin: BOT, sourceEnv, exec: testExec({ sourceEnv }) });
  const llm = await startScriptedLlmServer(replies);
  const repo = await seedRepo(fake, {
    owner: "acme",
    name: "widgets",
    files: { ...files, ".github/aider.yml": files[".github/aider.yml"] + extraConfig },
    permissions: { ann: "write", visitor: "read" },
  });
  // The workflow's GITHUB_TOKEN, as the fake's git endpoint accepts it.
  fake.state.issuedTokens.push(TOKEN);
  const dir = await mkdtemp(path.join(os.tmpdir(), "action-e2e-"));
  const rig: Rig = {
    fake,
    llm,
    repo,
    dir,
    workspace: path.join(dir, "workspace"),
    close: async () => {
      await llm.close();
      await fake.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return rig;
}

/** What actions/checkout leaves with persist-credentials: false: a clone of the branch, origin without credentials. */
async function checkout(rig: Rig, branch: string): Promise<void> {
  const header = `Authorization: Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString("base64")}`;
  await run(
    "git",
    [
      "-c",
      `http.extraHeader=${header}`,
      "clone",
      "-q",
      "--depth",
      "1",
      "-b",
      branch,
      `${rig.fake.webUrl}/acme/widgets.git`,
      rig.workspace,
    ],
    rig.dir,
  );
}

function repository(rig: Rig) {
  const base = examplePayload("issue_comment", "created").repository;
  return {
    ...base,
    name: "widgets",
    full_name: "acme/widgets",
    owner: exampleUser("acme"),
    clone_url: `${rig.fake.webUrl}/acme/widgets.git`,
    html_url: `${rig.fake.webUrl}/acme/widgets`,
    default_branch: "main",
  };
}

/** `/aider --file src/calc.py make add add` by ann on the pull request, as an issue_comment workflow receives it. */
function addAddComment(rig: Rig, pr: { number: number; title: string }, commentId: number) {
  const p = examplePayload("issue_comment", "created");
  p.repository = repository(rig);
  delete p.installation;
  p.issue = {
    ...p.issue,
    number: pr.number,
    title: pr.title,
    body: "",
    labels: [],
    pull_request: { url: `${rig.fake.apiUrl}/repos/acme/widgets/pulls/${pr.number}` },
  };
  p.comment = {
    ...p.comment,
    id: commentId,
    body: "/aider --file src/calc.py make add add",
    user: { ...p.comment.user, login: "ann", type: "User" },
    performed_via_github_app: null,
  };
  p.sender = exampleUser("ann", { id: 9, type: "User" });
  return p;
}

/** Run the built entry point exactly as the composite action's second step does. */
async function runAction(
  rig: Rig,
  event: string,
  payload: unknown,
  inputs: Record<string, string> = {},
  onStart?: (child: ChildProcess) => void,
) {
  const eventPath = path.join(rig.dir, "event.json");
  const outputPath = path.join(rig.dir, "output.txt");
  const summaryPath = path.join(rig.dir, "summary.md");
  await writeFile(eventPath, JSON.stringify(payload));
  await writeFile(outputPath, "");
  await writeFile(summaryPath, "");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: rig.dir,
    LANG: "C.UTF-8",
    CI: "true",
    // The fake GitHub needs no pacing of writes (one a second by default): as in the App's end-to-end tests.
    AIDER_BOT_THROTTLE: "0",
    ...(process.env.GIT_SSL_CAINFO ? { GIT_SSL_CAINFO: process.env.GIT_SSL_CAINFO } : {}),
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: event,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REPOSITORY: "acme/widgets",
    GITHUB_API_URL: rig.fake.apiUrl,
    GITHUB_SERVER_URL: rig.fake.webUrl,
    GITHUB_WORKSPACE: rig.workspace,
    GITHUB_OUTPUT: outputPath,
    GITHUB_STEP_SUMMARY: summaryPath,
    GITHUB_RUN_ID: "9001",
    GITHUB_RUN_ATTEMPT: "1",
    RUNNER_TEMP: path.join(rig.dir, "runner-temp"),
    INPUT_OPENAI_API_KEY: MODEL_KEY,
    INPUT_OPENAI_BASE_URL: rig.llm.baseUrl,
    INPUT_MODEL: "gpt-4o",
    INPUT_WEAK_MODEL: "",
    INPUT_EDIT_FORMAT: "",
    INPUT_TRIGGER: "",
    INPUT_LABEL: "",
    INPUT_CONFIG_PATH: ".github/aider.yml",
    INPUT_GITHUB_TOKEN: TOKEN,
    INPUT_BOT_LOGIN: BOT,
    INPUT_MESSAGE: "",
    ...inputs,
  };
  await run("mkdir", ["-p", env.RUNNER_TEMP!], rig.dir);
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
    (resolve) => {
      const child = spawn(process.execPath, [entry, "action"], {
        cwd: rig.workspace,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      onStart?.(child);
      let out = "";
      let err = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      child.stderr.on("data", (d: Buffer) => (err += d.toString()));
      child.on("close", (c) => resolve({ code: c, stdout: out, stderr: err }));
    },
  );
  const outputs = parseOutputFile(await readFile(outputPath, "utf8"));
  return { code, stdout, stderr, outputs, summary: await readFile(summaryPath, "utf8") };
}

/** Read `$GITHUB_OUTPUT` the way the runner does (heredoc blocks). */
function parseOutputFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^([\w-]+)<<(.+)$/.exec(lines[i]!);
    if (!m) continue;
    const value: string[] = [];
    for (i++; lines[i] !== m[2]; i++) value.push(lines[i]!);
    out[m[1]!] = value.join("\n");
  }
  return out;
}

/** Where the repository's test command ran, one line per run. */
async function testRuns(rig: Rig): Promise<string[]> {
  return (await readFile(path.join(rig.dir, "test-runs.txt"), "utf8").catch(() => "")).split("\n").filter(Boolean);
}

function botComments(rig: Rig) {
  return rig.repo.comments.filter((c) => c.user === BOT);
}

describe("aider-bot action (the built entry point, as a runner runs it)", () => {
  let rig: Rig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  it(
    "a /aider comment on a pull request: pushes a commit to its branch, status comment, reactions, Check Run, outputs",
    async () => {
      rig = await startRig([fix, "fix: make add add"]);
      const pr = await seedPullRequest(rig.fake, rig.repo, {
        title: "calc",
        head: "calc",
        user: "ann",
        files: { "notes.md": "n\n" },
      });
      // issue_comment workflows check out the default branch: the action clones the PR's branch itself.
      await checkout(rig, "main");
      const p = addAddComment(rig, pr, 501);
      const before = (await branchLog(rig.fake, rig.repo, "calc", 1))[0]!.sha;

      const result = await runAction(rig, "issue_comment", p);

      expect(result.code).toBe(0);
      const [head] = await branchLog(rig.fake, rig.repo, "calc", 1);
      expect(head!.sha).not.toBe(before);
      expect(head!.subject).toBe("fix: make add add");
      expect(head!.author).toBe(`${BOT} <41898282+github-actions[bot]@users.noreply.github.com>`);
      expect(head!.body).toMatch(/Aider-Bot-Run: /);
      expect(await fileOnBranch(rig.fake, rig.repo, "calc", "src/calc.py")).toContain("a + b");
      expect(result.outputs).toEqual({
        outcome: "pushed",
        "commit-sha": head!.sha,
        "pr-number": String(pr.number),
        tokens: expect.stringMatching(/^[1-9]\d*$/),
        cost: expect.stringMatching(/^\d/),
      });
      const status = botComments(rig);
      expect(status).toHaveLength(1);
      expect(status[0]!.issueNumber).toBe(pr.number);
      expect(status[0]!.body).toContain(`🚀 Pushed [\`${head!.sha.slice(0, 7)}\`]`);
      expect(rig.repo.reactions).toEqual([
        { subject: "issues/comments/501", content: "eyes", user: BOT },
        { subject: "issues/comments/501", content: "rocket", user: BOT },
      ]);
      // The checkout is the default branch, not the PR's: the branch was cloned into the runner's temp folder.
      const [ranIn] = await testRuns(rig);
      expect(ranIn!.startsWith(path.join(rig.dir, "runner-temp"))).toBe(true);
      expect(ranIn!.endsWith(" none none")).toBe(true);
      expect(await run("git", ["rev-parse", "--abbrev-ref", "HEAD"], rig.workspace)).toBe("main");
      expect(rig.repo.checkRuns).toEqual([
        expect.objectContaining({ headSha: before, status: "completed", conclusion: "success" }),
      ]);
      expect(result.summary).toContain("## aider-bot");
      expect(result.summary).toContain("🚀 Pushed");
      // The token went to git only as a header, and neither secret reached the logs or the model.
      expect(rig.fake.gitRequests.every((r) => !r.url.includes(TOKEN))).toBe(true);
      for (const text of [result.stdout, result.stderr, JSON.stringify(rig.llm.requests.map((r) => r.body))]) {
        expect(text).not.toContain(TOKEN);
        expect(text).not.toContain(MODEL_KEY);
      }
    },
    RUN_MS,
  );

  it(
    "an issue labelled `aider`: works in the workflow's checkout, pushes a branch, opens a PR that fixes the issue",
    async () => {
      rig = await startRig(["I need src/calc.py\n", fix, "fix: make add add"]);
      const issue = seedIssue(rig.fake, rig.repo, {
        title: "add() subtracts!",
        body: "Calling add(1, 2) gives -1.",
        user: "reporter",
        labels: ["aider"],
      });
      await checkout(rig, "main");
      const p = examplePayload("issues", "labeled");
      p.repository = repository(rig);
      delete p.installation;
      p.issue = {
        ...p.issue,
        number: issue.number,
        title: issue.title,
        body: issue.body,
        labels: [exampleLabel("aider")],
        updated_at: "2026-11-01T10:00:00Z",
      };
      delete p.issue.pull_request;
      p.label = exampleLabel("aider");
      p.sender = exampleUser("ann", { id: 9, type: "User" });

      const result = await runAction(rig, "issues", p, {
        INPUT_PASS_ENV: "SERVICE_URL",
        SERVICE_URL: "postgres://db:5432",
      });

      expect(result.code).toBe(0);
      const pr = [...rig.repo.issues.values()].find((i) => i.pull && i.user === BOT)!;
      expect(pr.pull!.head).toBe("aider/issue-1-add-subtracts");
      expect(pr.body).toContain("Fixes #1");
      const [head] = await branchLog(rig.fake, rig.repo, pr.pull!.head, 1);
      expect(await fileOnBranch(rig.fake, rig.repo, pr.pull!.head, "src/calc.py")).toContain("a + b");
      expect(result.outputs).toMatchObject({
        outcome: "pull-request",
        "commit-sha": head!.sha,
        "pr-number": String(pr.number),
      });
      // In place: the repository's tests ran in the workflow's checkout, which is now on the bot's branch at the pushed commit.
      expect(await testRuns(rig)).toEqual([`${rig.workspace} postgres://db:5432 none`]);
      expect(await run("git", ["rev-parse", "--abbrev-ref", "HEAD"], rig.workspace)).toBe(pr.pull!.head);
      expect(await run("git", ["rev-parse", "HEAD"], rig.workspace)).toBe(head!.sha);
      expect(botComments(rig)).toHaveLength(1);
      expect(botComments(rig)[0]!.body).toContain(`Opened #${pr.number}`);
      expect(rig.repo.reactions.map((r) => `${r.subject}:${r.content}`)).toEqual(["issues/1:eyes", "issues/1:rocket"]);
    },
    RUN_MS,
  );

  it(
    "workflow_dispatch on a branch with an open PR: the message runs there, status comment on the PR",
    async () => {
      rig = await startRig(["I need src/calc.py\n", fix, "fix: make add add"]);
      const pr = await seedPullRequest(rig.fake, rig.repo, {
        title: "calc",
        head: "calc",
        user: "ann",
        files: { "notes.md": "n\n" },
      });
      await checkout(rig, "calc");
      const p = {
        ref: "refs/heads/calc",
        inputs: { message: "make add add" },
        repository: repository(rig),
        sender: { login: "ann", id: 9, type: "User" },
        workflow: ".github/workflows/aider.yml",
      };

      const result = await runAction(rig, "workflow_dispatch", p, { INPUT_MESSAGE: "make add add" });

      expect(result.code).toBe(0);
      const [head] = await branchLog(rig.fake, rig.repo, "calc", 1);
      expect(head!.subject).toBe("fix: make add add");
      expect(await fileOnBranch(rig.fake, rig.repo, "calc", "src/calc.py")).toContain("a + b");
      expect(await testRuns(rig)).toEqual([`${rig.workspace} none none`]);
      expect(await run("git", ["rev-parse", "HEAD"], rig.workspace)).toBe(head!.sha);
      expect(result.outputs).toMatchObject({
        outcome: "pushed",
        "commit-sha": head!.sha,
        "pr-number": String(pr.number),
      });
      expect(botComments(rig)).toHaveLength(1);
      expect(botComments(rig)[0]!.issueNumber).toBe(pr.number);
      expect(botComments(rig)[0]!.body).toContain("🚀 Pushed");
      expect(rig.llm.requests[0]!.body.messages.map((m) => m.content).join("\n")).toContain("make add add");
    },
    RUN_MS,
  );

  it(
    "workflow_dispatch on a branch without a PR: commits onto that branch, the summary says so",
    async () => {
      rig = await startRig(["I need src/calc.py\n", fix, "fix: make add add"]);
      // A pushed branch nobody opened a pull request for.
      const seeded = await seedPullRequest(rig.fake, rig.repo, {
        title: "feature",
        head: "feature",
        user: "ann",
        files: { "notes.md": "n\n" },
      });
      rig.repo.issues.delete(seeded.number);
      await checkout(rig, "feature");
      const p = {
        ref: "refs/heads/feature",
        repository: repository(rig),
        sender: { login: "ann", id: 9, type: "User" },
      };

      const result = await runAction(rig, "workflow_dispatch", p, { INPUT_MESSAGE: "make add add" });

      expect(result.code).toBe(0);
      const [head] = await branchLog(rig.fake, rig.repo, "feature", 1);
      expect(head!.subject).toBe("fix: make add add");
      expect(await fileOnBranch(rig.fake, rig.repo, "main", "src/calc.py")).toContain("a - b");
      expect(result.outputs).toMatchObject({ outcome: "pushed", "commit-sha": head!.sha, "pr-number": "" });
      expect(botComments(rig)).toEqual([]);
      expect(rig.repo.reactions).toEqual([]);
      expect(result.summary).toContain(`### pushed on \`feature\``);
      expect(result.summary).toContain(`to \`feature\`.`);
    },
    RUN_MS,
  );

  it(
    "schedule: the config's entry with the cron that fired runs on its tracking issue and opens a PR",
    async () => {
      const schedules =
        'schedules:\n  - cron: "0 3 * * 1-5"\n    message: Make add add.\n    files: [src/calc.py]\n  - cron: "0 4 * * *"\n    message: Something else entirely.\n';
      rig = await startRig([fix, "fix: make add add"], schedules);
      await checkout(rig, "main");

      const result = await runAction(rig, "schedule", { schedule: "0 3 * * 1-5", repository: repository(rig) });

      expect(result.code).toBe(0);
      const tracking = [...rig.repo.issues.values()].find((i) => !i.pull && i.user === BOT)!;
      expect(tracking.title).toBe("aider-bot schedule: Make add add.");
      const pr = [...rig.repo.issues.values()].find((i) => i.pull && i.user === BOT)!;
      expect(pr.body).toContain(`Fixes #${tracking.number}`);
      expect(await fileOnBranch(rig.fake, rig.repo, pr.pull!.head, "src/calc.py")).toContain("a + b");
      expect(result.outputs).toMatchObject({ outcome: "pull-request", "pr-number": String(pr.number) });
      expect(botComments(rig).map((c) => c.issueNumber)).toEqual([tracking.number]);
      // Only the entry whose cron fired ran.
      expect(rig.llm.requests.map((r) => r.body.messages.map((m) => m.content).join("\n")).join("\n")).not.toContain(
        "Something else entirely",
      );
    },
    RUN_MS,
  );

  it(
    "a review comment: the reply goes into the review thread and the commit onto the PR's branch",
    async () => {
      rig = await startRig([fix, "fix: correct add"]);
      const pr = await seedPullRequest(rig.fake, rig.repo, {
        title: "calc",
        head: "calc",
        user: "ann",
        files: { "notes.md": "n\n" },
      });
      await checkout(rig, "main");
      rig.repo.reviewComments.push({
        id: 77,
        pullNumber: pr.number,
        body: "/aider this should add",
        user: "ann",
        path: "src/calc.py",
        line: 2,
      });
      const p = examplePayload("pull_request_review_comment", "created");
      p.repository = repository(rig);
      delete p.installation;
      p.pull_request = { ...p.pull_request, number: pr.number, title: pr.title, body: "" };
      p.comment = {
        ...p.comment,
        id: 77,
        body: "/aider this should add",
        path: "src/calc.py",
        line: 2,
        diff_hunk: "@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b",
        user: exampleUser("ann", { id: 9, type: "User" }),
      };
      p.sender = exampleUser("ann", { id: 9, type: "User" });

      const result = await runAction(rig, "pull_request_review_comment", p);

      expect(result.code).toBe(0);
      const [head] = await branchLog(rig.fake, rig.repo, "calc", 1);
      expect(head!.subject).toBe("fix: correct add");
      expect(rig.repo.reviewComments.find((c) => c.inReplyTo === 77)?.body).toContain("🚀 Pushed");
      expect(rig.repo.reactions.map((r) => `${r.subject}:${r.content}`)).toEqual([
        "pulls/comments/77:eyes",
        "pulls/comments/77:rocket",
      ]);
      expect(result.outputs).toMatchObject({
        outcome: "pushed",
        "commit-sha": head!.sha,
        "pr-number": String(pr.number),
      });
    },
    RUN_MS,
  );

  it(
    "a cancelled workflow run (the runner's SIGINT) stops the run, pushes nothing and says so",
    async () => {
      rig = await startRig([{ hangMs: 120_000 }]);
      const pr = await seedPullRequest(rig.fake, rig.repo, {
        title: "calc",
        head: "calc",
        user: "ann",
        files: { "notes.md": "n\n" },
      });
      await checkout(rig, "calc");
      const before = (await branchLog(rig.fake, rig.repo, "calc", 1))[0]!.sha;
      const p = { ref: "refs/heads/calc", repository: repository(rig), sender: { login: "ann", id: 9, type: "User" } };
      const r = rig;

      const result = await runAction(rig, "workflow_dispatch", p, { INPUT_MESSAGE: "make add add" }, (child) => {
        // Cancel once the model has been asked (the run is in its longest stage).
        let closed = false;
        child.on("close", () => (closed = true));
        void pollUntil(() => r.llm.requests.length > 0 || closed).then(
          (asked) => asked && !closed && child.kill("SIGINT"),
        );
      });

      expect(result.code).toBe(0);
      expect(result.outputs.outcome).toBe("cancelled");
      expect((await branchLog(rig.fake, rig.repo, "calc", 1))[0]!.sha).toBe(before);
      expect(botComments(rig).find((c) => c.issueNumber === pr.number)?.body).toContain("nothing was pushed");
    },
    RUN_MS,
  );

  it(
    "a comment on a fork's pull request: the fork's commands never run on the runner, the change comes as a patch",
    async () => {
      rig = await startRig([fix, "fix: make add add"]);
      // The fork: another repository holding the PR's branch.
      const fork = await seedRepo(rig.fake, { owner: "mallory", name: "widgets", files, permissions: {} });
      await seedPullRequest(rig.fake, fork, {
        title: "calc",
        head: "calc",
        user: "mallory",
        files: { "notes.md": "n\n" },
      });
      const number = rig.fake.state.nextIssueNumber(rig.repo);
      rig.repo.issues.set(number, {
        number,
        title: "calc",
        body: "",
        user: "mallory",
        labels: [],
        pull: { head: "calc", base: "main", draft: false, requestedReviewers: [], headRepoFullName: "mallory/widgets" },
      });
      await checkout(rig, "main");
      const p = examplePayload("issue_comment", "created");
      p.repository = repository(rig);
      delete p.installation;
      p.issue = {
        ...p.issue,
        number,
        title: "calc",
        body: "",
        labels: [],
        pull_request: { url: `${rig.fake.apiUrl}/repos/acme/widgets/pulls/${number}` },
      };
      p.comment = {
        ...p.comment,
        id: 503,
        body: "/aider --file src/calc.py make add add",
        user: { ...p.comment.user, login: "ann", type: "User" },
        performed_via_github_app: null,
      };
      p.sender = exampleUser("ann", { id: 9, type: "User" });
      const forkHead = (await branchLog(rig.fake, fork, "calc", 1))[0]!.sha;

      const result = await runAction(rig, "issue_comment", p);

      expect(result.code).toBe(0);
      expect(result.outputs).toMatchObject({ outcome: "patch", "commit-sha": "", "pr-number": "" });
      expect(await testRuns(rig)).toEqual([]);
      expect((await branchLog(rig.fake, fork, "calc", 1))[0]!.sha).toBe(forkHead);
      const status = botComments(rig).find((c) => c.issueNumber === number)!;
      expect(status.body).toContain("comes from a fork");
      expect(status.body).toContain("+    return a + b");
    },
    RUN_MS,
  );

  it(
    "a commenter without write access gets the App's one polite reply, and nothing runs",
    async () => {
      rig = await startRig([]);
      const issue = seedIssue(rig.fake, rig.repo, { title: "t", body: "b", user: "visitor" });
      await checkout(rig, "main");
      const p = examplePayload("issue_comment", "created");
      p.repository = repository(rig);
      p.issue = { ...p.issue, number: issue.number, title: issue.title, body: issue.body, labels: [] };
      delete p.issue.pull_request;
      p.comment = {
        ...p.comment,
        id: 502,
        body: "/aider do it",
        user: { ...p.comment.user, login: "visitor", type: "User" },
        performed_via_github_app: null,
      };
      p.sender = { ...p.sender, login: "visitor", id: 8, type: "User" };

      const result = await runAction(rig, "issue_comment", p);

      expect(result.code).toBe(0);
      expect(result.outputs).toEqual({
        outcome: "unauthorized",
        "commit-sha": "",
        "pr-number": "",
        tokens: "",
        cost: "",
      });
      expect(botComments(rig)).toHaveLength(1);
      expect(botComments(rig)[0]!.body).toContain("@visitor");
      expect(rig.llm.requests).toHaveLength(0);
    },
    RUN_MS,
  );

  it(
    "a setup error (workflow_dispatch without a message) fails the step with an ::error:: line",
    async () => {
      rig = await startRig([]);
      await checkout(rig, "main");
      const result = await runAction(rig, "workflow_dispatch", {
        ref: "refs/heads/main",
        inputs: {},
        repository: repository(rig),
        sender: { login: "ann", id: 9, type: "User" },
      });
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/^::error title=aider-bot setup::A workflow_dispatch run needs a request/m);
      expect(result.outputs).toEqual({});
    },
    RUN_MS,
  );
});

describe("aider-bot action from its release bundle (scripts/build-action.mjs)", () => {
  let rig: Rig | undefined;
  let bundleDir: string | undefined;
  afterEach(async () => {
    entry = MAIN;
    await rig?.close();
    rig = undefined;
    if (bundleDir) await rm(bundleDir, { recursive: true, force: true });
  });

  it(
    "runs a pull-request request end to end from a bundle copied away from any node_modules (no npm ci, no build)",
    async () => {
      // Outside the repository, so nothing can resolve from its node_modules: the bundle must carry all it loads.
      bundleDir = await mkdtemp(path.join(os.tmpdir(), "action-bundle-"));
      const { buildAction, treeDigest, compareDigests } = (await import(
        path.join(ROOT, "scripts/build-action.mjs")
      )) as {
        buildAction(out: string): Promise<void>;
        treeDigest(dir: string): Promise<[string, string][]>;
        compareDigests(expected: [string, string][], actual: [string, string][]): string[];
      };
      await buildAction(path.join(bundleDir, "action-dist"));
      // Deterministic, which is what lets CI refuse a committed bundle that differs from the sources (`--check`).
      await buildAction(path.join(bundleDir, "again"));
      const digest = await treeDigest(path.join(bundleDir, "action-dist"));
      expect(compareDigests(digest, await treeDigest(path.join(bundleDir, "again")))).toEqual([]);
      expect(compareDigests(digest, digest.slice(1))).toEqual([`missing from the committed bundle: ${digest[0]![0]}`]);
      entry = path.join(bundleDir, "action-dist/cli/main.js");
      rig = await startRig([fix, "fix: make add add"]);
      const pr = await seedPullRequest(rig.fake, rig.repo, { title: "calc", head: "calc", user: "ann", files: {} });
      await checkout(rig, "main");
      const p = addAddComment(rig, pr, 502);

      const result = await runAction(rig, "issue_comment", p);

      expect({ code: result.code, stderr: result.stderr.slice(-2000) }).toEqual({
        code: 0,
        stderr: expect.any(String),
      });
      expect(result.outputs.outcome).toBe("pushed");
      expect(await fileOnBranch(rig.fake, rig.repo, "calc", "src/calc.py")).toContain("a + b");
      // The shipped grammars load: the bundle's repo map finds calc.py's definition through tree-sitter.
      // A cache dir of its own, so no earlier parse can stand in for the grammar.
      const mapped = await exec.run({
        command: process.execPath,
        args: [entry, "map", "--repo", rig.workspace],
        cwd: rig.dir,
        env: { AIDER_BOT_CACHE_DIR: path.join(rig.dir, "map-cache") },
      });
      expect(mapped.exitCode).toBe(0);
      const map = mapped.stdout;
      expect(map).toContain("src/calc.py");
      expect(map).toMatch(/def add\(a, b\)/);
    },
    RUN_MS,
  );
});

describe("action.yml's first step (which entry the runner starts)", () => {
  /** Run the step's script as the runner would, with an `npm` that only records what it was asked. */
  async function prepare(withBundle: boolean) {
    const { parse } = await import("yaml");
    const action = parse(await readFile(path.join(ROOT, "action.yml"), "utf8")) as {
      runs: { steps: { id?: string; run?: string }[] };
    };
    const script = action.runs.steps.find((s) => s.id !== "run")!.run!;
    const dir = await mkdtemp(path.join(os.tmpdir(), "action-path-"));
    try {
      const bin = path.join(dir, "bin");
      await run("mkdir", ["-p", bin, path.join(dir, "action/action-dist/cli")], dir);
      await writeFile(path.join(bin, "npm"), `#!/bin/sh\necho "npm $*" >> "${dir}/npm-calls"\n`, { mode: 0o755 });
      if (withBundle) await writeFile(path.join(dir, "action/action-dist/cli/main.js"), "");
      await writeFile(path.join(dir, "github-env"), "");
      const r = await exec.run({
        command: "bash",
        args: ["-e", "-c", script],
        cwd: path.join(dir, "action"),
        env: {
          PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
          GITHUB_ACTION_PATH: path.join(dir, "action"),
          GITHUB_ENV: path.join(dir, "github-env"),
        },
      });
      expect(r.exitCode).toBe(0);
      return {
        env: (await readFile(path.join(dir, "github-env"), "utf8")).trim(),
        npm: (await readFile(path.join(dir, "npm-calls"), "utf8").catch(() => "")).trim().split("\n").filter(Boolean),
        action: path.join(dir, "action"),
      };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  it("starts a release's bundle at once when the tag carries one (on the Linux x64 runners it is built for)", async () => {
    const onThisMachine = `${process.platform}-${process.arch}` === "linux-x64";
    const r = await prepare(true);
    if (onThisMachine) {
      expect(r.npm).toEqual([]);
      expect(r.env).toBe(`AIDER_BOT_ENTRY=${r.action}/action-dist/cli/main.js`);
    } else {
      expect(r.npm).toEqual(["npm ci --no-audit --no-fund --loglevel=error", "npm run build --silent"]);
    }
  });

  it("builds from source where there is no bundle (a branch such as main)", async () => {
    const r = await prepare(false);
    expect(r.npm).toEqual(["npm ci --no-audit --no-fund --loglevel=error", "npm run build --silent"]);
    expect(r.env).toBe(`AIDER_BOT_ENTRY=${r.action}/dist/cli/main.js`);
  });
});
