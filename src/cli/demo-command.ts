import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startAppServer } from "../app/start-app-server.js";
import { readEnv, sourceEnv } from "../config/env.js";
import { chooseDemoSandbox } from "./demo-sandbox.js";
import {
  DEMO_FILES,
  DEMO_ISSUE,
  DEMO_ISSUE_TURNS,
  DEMO_PR,
  DEMO_PR_TURNS,
  DEMO_REPLIES,
  DEMO_TEST_COMMAND,
} from "#testkit/demo-script.js";
import { narrateLoop } from "#testkit/narrate-loop.js";
import { isCommitMessageRequest, startScriptedLlmServer } from "#testkit/scripted-llm-server.js";
import { sendWebhook } from "#testkit/send-webhook.js";
import { branchLog, seedIssue, seedPullRequest, seedRepo } from "#testkit/seed-repo.js";
import { startFakeGitHub } from "#testkit/start-fake-github.js";
import { createExec } from "../exec/create-exec.js";

/**
 * `aider-bot demo` / `npm run demo`: the whole loop offline. Starts a fake GitHub (REST + git over HTTP), a scripted
 * model and the real app; posts `/aider …` on a pull request whose new test fails, as a signed webhook; prints the
 * loop (the model's edit, the failing test sent back, the fix, the green run), the commit pushed and the comment.
 * Needs only the README's requirements: where bubblewrap cannot run, the demo's own (trusted) repository runs its
 * test command unsandboxed, and the demo says so.
 */
export async function demoCommand(source: Readonly<Record<string, string | undefined>> = sourceEnv()): Promise<number> {
  const say = (s: string) => process.stdout.write(`${s}\n`);
  const exec = createExec({ sourceEnv: source });
  const sandbox = await chooseDemoSandbox(exec, source.AIDER_BOT_SANDBOX);
  // Its own queue and caches, removed at the end: a demo stopped half-way must leave no job behind for the next demo
  // (or an app started from the same folder, whose queue is ./.aider-bot by default) to run again.
  const scratch = await mkdtemp(path.join(os.tmpdir(), "aider-bot-demo-"));
  const fake = await startFakeGitHub({ sourceEnv: source, exec });
  const llm = await startScriptedLlmServer(DEMO_REPLIES);
  // What the coder model was sent from the `from`th request on (the last message of each; commit subjects left out).
  const promptsSince = (from: number) =>
    llm.requests
      .slice(from)
      .filter((r) => !isCommitMessageRequest(r.body))
      .map((r) => r.body.messages.at(-1)?.content ?? "");
  const secret = "demo-webhook-secret";
  let app: Awaited<ReturnType<typeof startAppServer>> | null = null;
  try {
    const repo = await seedRepo(fake, {
      owner: "acme",
      name: "widgets",
      files: DEMO_FILES,
      permissions: { maintainer: "write" },
    });
    const pr = await seedPullRequest(fake, repo, {
      title: DEMO_PR.title,
      head: DEMO_PR.head,
      user: "maintainer",
      files: DEMO_PR.files,
    });
    const { privateKey } = generateKeyPairSync("rsa", {
      modulusLength: 2048,
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
      publicKeyEncoding: { type: "spki", format: "pem" },
    });
    const env = demoEnv(source, {
      secret,
      apiUrl: fake.apiUrl,
      llmUrl: llm.baseUrl,
      sandbox: sandbox.setting,
      scratch,
    });
    app = await startAppServer(env, privateKey);
    say(`Fake GitHub at ${fake.webUrl}, scripted model at ${llm.baseUrl}, app at ${app.url}`);
    say(sandbox.note);
    say(
      `\nPull request ${repo.owner}/${repo.name}#${pr.number} "${pr.title}" adds ${Object.keys(DEMO_PR.files).join(" and ")}; its new test fails.`,
    );
    say(`The repository's test command is \`${DEMO_TEST_COMMAND}\` (.github/aider.yml).`);
    const run: DemoRun = { say, fake, llm, app, exec, repo, secret, promptsSince };
    const { loop, commit, payload } = await showPullRequestFlow(run, pr);
    const { issueLoop, opened } = await showIssueFlow(run, payload);
    // The demo shows the loop or fails: a run whose checks were skipped or never failed is not the demo.
    const missed = [
      loop.reflected ? "" : "no failing test was sent back to the model",
      loop.green ? "" : "the pull request's run did not end green",
      commit?.subject.startsWith("feat:") ? "" : "the bot pushed no commit to the pull request",
      opened ? "" : "no pull request was opened for the issue",
      issueLoop.green ? "" : "the issue's run did not end green",
    ].filter(Boolean);
    if (missed.length === 0) return 0;
    say(
      `\nThe demo did not show the whole loop: ${missed.join("; ")}. Run it with LOG_LEVEL=info to see the app's log.`,
    );
    return 1;
  } finally {
    // The job engines too (their timers, queue files and the spare job process), or the process never exits.
    await app?.shutdown(1_000);
    await llm.close();
    await fake.close();
    await rm(scratch, { recursive: true, force: true });
  }
}

function pick(source: Readonly<Record<string, string | undefined>>, keys: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of keys) {
    const value = source[k];
    if (value !== undefined) out[k] = value;
  }
  return out;
}

/** What the demo's two flows share: the fake GitHub, the scripted model's log, the running app, the repository. */
interface DemoRun {
  say(line: string): void;
  fake: Awaited<ReturnType<typeof startFakeGitHub>>;
  llm: Awaited<ReturnType<typeof startScriptedLlmServer>>;
  app: Awaited<ReturnType<typeof startAppServer>>;
  exec: ReturnType<typeof createExec>;
  repo: Awaited<ReturnType<typeof seedRepo>>;
  secret: string;
  promptsSince(from: number): string[];
}

/** The app's environment for the demo: its own fake GitHub, scripted model, sandbox choice, queue and caches. */
function demoEnv(
  source: Readonly<Record<string, string | undefined>>,
  o: { secret: string; apiUrl: string; llmUrl: string; sandbox: string; scratch: string },
) {
  return readEnv({
    ...pick(source, ["PATH", "HOME", "LANG", "TMPDIR", "GIT_SSL_CAINFO"]),
    APP_ID: "1",
    WEBHOOK_SECRET: o.secret,
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: source.LOG_LEVEL ?? "warn",
    LOG_FORMAT: source.LOG_FORMAT,
    GITHUB_API_URL: o.apiUrl,
    OPENAI_BASE_URL: o.llmUrl,
    OPENAI_API_KEY: "demo-key",
    AIDER_BOT_MODEL: "gpt-4o",
    // Its own fake GitHub: no pacing of writes (one a second, as real GitHub asks) in the app or its job processes,
    // which read this from the environment they inherit.
    AIDER_BOT_THROTTLE: "0",
    AIDER_BOT_SANDBOX: o.sandbox,
    AIDER_BOT_DATA_DIR: path.join(o.scratch, "queue"),
    AIDER_BOT_CACHE_DIR: path.join(o.scratch, "cache"),
  });
}

/** First flow: `/aider …` on the pull request whose new test fails; the loop, the commit pushed, the comment. */
async function showPullRequestFlow(d: DemoRun, pr: Awaited<ReturnType<typeof seedPullRequest>>) {
  const { say, fake, app, exec, repo, secret, promptsSince } = d;
  const head = pr.pull?.head;
  if (head === undefined) throw new Error(`the demo's #${pr.number} was seeded as an issue, not a pull request`);
  say(`\n@maintainer comments on ${repo.owner}/${repo.name}#${pr.number}:  ${DEMO_PR.comment}\n`);
  const payload = {
    action: "created",
    installation: { id: 1 },
    repository: {
      id: 1,
      name: repo.name,
      full_name: `${repo.owner}/${repo.name}`,
      owner: { login: repo.owner, type: "Organization" },
      clone_url: `${fake.webUrl}/${repo.owner}/${repo.name}.git`,
      html_url: `${fake.webUrl}/${repo.owner}/${repo.name}`,
      default_branch: repo.defaultBranch,
    },
    issue: {
      number: pr.number,
      updated_at: new Date().toISOString(),
      title: pr.title,
      body: pr.body,
      user: { login: pr.user },
      labels: [],
      pull_request: { url: `${fake.apiUrl}/repos/${repo.owner}/${repo.name}/pulls/${pr.number}` },
    },
    comment: { id: 9001, body: DEMO_PR.comment, user: { login: "maintainer", id: 7, type: "User" } },
    sender: { login: "maintainer", id: 7, type: "User" },
  };
  const res = await sendWebhook({ url: app.webhookUrl, secret, event: "issue_comment", payload });
  say(`Webhook delivered (HTTP ${res.status}); the bot acknowledged with 👀 and a "queued" status comment.`);
  await app.app.idle();
  const prStatus = repo.comments.filter((c) => c.issueNumber === pr.number).at(-1)?.body ?? "";
  const loop = narrateLoop({
    prompts: promptsSince(0),
    turns: DEMO_PR_TURNS,
    testCommand: DEMO_TEST_COMMAND,
    status: prStatus,
  });
  say("── The edit loop ──────────────────────────────────────────────────────");
  for (const line of loop.lines) say(line);
  const [commit] = await branchLog(fake, repo, head, 1);
  const diff = await exec.run({
    command: "git",
    args: ["show", "--stat", "--patch", "--format=commit %H%nAuthor: %an <%ae>%n%n%B", `refs/heads/${head}`],
    cwd: fake.bareDir(repo),
  });
  say("\n── Commit pushed to the pull request branch ──────────────────────────");
  say(diff.stdout.trim());
  say("\n── Status comment on the pull request ─────────────────────────────────");
  for (const c of repo.comments.filter((x) => x.issueNumber === pr.number))
    say(c.body.replace(/<!--[\s\S]*?-->\n?/g, "").trim());
  say(
    `\nReactions: ${repo.reactions.map((r) => r.content).join(", ")} · Check Run: ${repo.checkRuns.map((c) => `${c.name} ${c.conclusion}`).join(", ")}`,
  );

  return { loop, commit, payload };
}

/** Second flow: an issue labelled `aider` becomes a pull request. */
async function showIssueFlow(d: DemoRun, payload: { repository: unknown; sender: unknown }) {
  const { say, fake, llm, app, repo, secret, promptsSince } = d;
  const issue = seedIssue(fake, repo, { title: DEMO_ISSUE.title, body: DEMO_ISSUE.body, user: "maintainer" });
  say(`\n@maintainer labels issue #${issue.number} "${issue.title}" with \`aider\`\n`);
  const issueRequestsFrom = llm.requests.length;
  await sendWebhook({
    url: app.webhookUrl,
    secret,
    event: "issues",
    payload: {
      action: "labeled",
      installation: { id: 1 },
      repository: payload.repository,
      label: { name: "aider" },
      issue: {
        number: issue.number,
        title: issue.title,
        body: issue.body,
        user: { login: "maintainer" },
        labels: [{ name: "aider" }],
        updated_at: new Date().toISOString(),
      },
      sender: payload.sender,
    },
  });
  await app.app.idle();
  const issueStatus = repo.comments.filter((c) => c.issueNumber === issue.number).at(-1);
  const issueLoop = narrateLoop({
    prompts: promptsSince(issueRequestsFrom),
    turns: DEMO_ISSUE_TURNS,
    testCommand: DEMO_TEST_COMMAND,
    status: issueStatus?.body ?? "",
  });
  say("── The edit loop ──────────────────────────────────────────────────────");
  for (const line of issueLoop.lines) say(line);
  const opened = [...repo.issues.values()].find((i) => i.pull && i.body.includes(`Fixes #${issue.number}`));
  say("\n── Pull request opened for the issue ──────────────────────────────────");
  const pull = opened?.pull;
  if (opened && pull) {
    say(
      `#${opened.number} ${opened.title}  (${pull.draft ? "draft, " : ""}${pull.head} → ${pull.base}, review requested from ${pull.requestedReviewers.join(", ")})`,
    );
    say(opened.body);
  } else {
    say("(no pull request was opened — see the status comment below)");
  }
  if (issueStatus)
    say(
      `\nStatus comment on #${issue.number}: ${
        issueStatus.body
          .replace(/<!--[\s\S]*?-->\n?/g, "")
          .trim()
          .split("\n")[0]
      }`,
    );
  return { issueLoop, opened };
}
