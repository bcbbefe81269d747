/**
 * The webhook storm (`npm run bench storm`): 200 signed deliveries sent at once to the running app — unique `/aider
 * ask` commands spread over many issues plus redeliveries of some of them (same delivery id, sent alongside and
 * again later). Prints the ack latency and the first visible feedback (👀 and the "queued" status comment) as
 * percentiles, then waits for every run to end and counts lost, duplicated and orphan (stuck in a running state)
 * status comments. Targets (#13): ack p99 < 50 ms; first feedback p50 < 1 s, p99 < 3 s; zero lost/dup/orphans.
 * The ack figures are printed beside the floor of this machine, measured first in the same run: the same waves sent
 * to a bare receiver (verify, parse, answer) and to one that also records each delivery durably (lib/storm-floor).
 *
 * Modes: embedded (one `aider-bot serve`), and redis (a receiver plus two `aider-bot worker`s on a redis-server
 * started here) when the app supports it and redis-server is installed.
 */
import { randomUUID } from "node:crypto";
import { execFileSync, spawnSync } from "node:child_process";
import { seedIssue } from "../testkit/seed-repo.js";
import type { FakeIssue } from "../testkit/fake-github-state.js";
import { freePort, percentile, startRig, WEBHOOK_SECRET, type Rig } from "./lib/app-rig.js";
import { sendStorm, type StormDelivery } from "./lib/storm-sender.js";
import { measureStormFloor, type FloorResult } from "./lib/storm-floor.js";

const FILES = {
  "src/fetch-client.ts":
    "export async function getText(url: string): Promise<string> {\n  return (await fetch(url)).text();\n}\n",
  ".github/aider.yml": "map_tokens: 256\n",
};
const USER = "maintainer";
const ISSUES = 40;
const DELIVERIES = 200;
const REDELIVERED = 30;

interface Delivery {
  id: string;
  issue: FakeIssue;
  commentId: number;
  payload: unknown;
  sentAt: number;
  ackMs?: number;
  status?: number;
}

function commentPayload(rig: Rig, issue: FakeIssue, commentId: number, body: string): unknown {
  const repo = {
    id: 1,
    node_id: "R_1",
    name: rig.repo.name,
    full_name: `${rig.repo.owner}/${rig.repo.name}`,
    private: false,
    owner: { login: rig.repo.owner, id: 2, type: "Organization" },
    clone_url: `${rig.fake.webUrl}/${rig.repo.owner}/${rig.repo.name}.git`,
    html_url: `${rig.fake.webUrl}/${rig.repo.owner}/${rig.repo.name}`,
    default_branch: rig.repo.defaultBranch,
  };
  const sender = { login: USER, id: 77, type: "User" };
  return {
    action: "created",
    issue: {
      updated_at: "2026-01-01T00:00:00Z",
      id: issue.number,
      number: issue.number,
      title: issue.title,
      body: issue.body,
      user: sender,
      labels: [],
      state: "open",
    },
    comment: {
      id: commentId,
      body,
      user: sender,
      performed_via_github_app: null,
      created_at: new Date().toISOString(),
    },
    repository: repo,
    sender,
    installation: { id: 1, node_id: "I_1" },
  };
}

interface Storm {
  deliveries: Delivery[];
  /** The same waves' acks from bare receivers on this machine (see storm-floor). */
  floor: FloorResult[];
  acks: { ms: number; status: number }[];
  t0: number;
}

async function storm(rig: Rig, url: string): Promise<Storm> {
  const issues = Array.from({ length: ISSUES }, (_, i) =>
    seedIssue(rig.fake, rig.repo, { title: `Question ${i + 1}`, body: "What does getText do?", user: USER }),
  );
  const unique: Delivery[] = Array.from({ length: DELIVERIES - REDELIVERED }, (_, i) => {
    const issue = issues[i % ISSUES]!;
    const commentId = 90_000 + i;
    return {
      id: randomUUID(),
      issue,
      commentId,
      payload: commentPayload(rig, issue, commentId, `/aider ask what does getText do? (${i})`),
      sentAt: 0,
    };
  });
  // Half the redeliveries race their original; the other half come once the storm's first wave is answered.
  const racing = unique.slice(0, REDELIVERED / 2);
  const late = unique.slice(REDELIVERED / 2, REDELIVERED);
  const asSent = (d: Delivery): StormDelivery => ({ id: d.id, event: "issue_comment", payload: d.payload });
  const waves = [[...unique, ...racing].map(asSent), late.map(asSent)];
  // The floor first, while the app waits idle: the same waves from the same sender, to bare receivers.
  const floor = await measureStormFloor(WEBHOOK_SECRET, waves);
  const { acks: sent, t0 } = await sendStorm(url, WEBHOOK_SECRET, waves);
  const byId = new Map(unique.map((d) => [d.id, d]));
  for (const a of sent) {
    const d = byId.get(a.id);
    // The first answer of an id is its original's (the wave with the racing copies is sent original first).
    if (d && d.status === undefined) Object.assign(d, { sentAt: a.sentAt, ackMs: a.ms, status: a.status });
  }
  return { deliveries: unique, floor, acks: sent.map((a) => ({ ms: a.ms, status: a.status })), t0 };
}

async function measure(label: string, rig: Rig, webhookUrl: string): Promise<void> {
  const { deliveries, floor, acks: sent, t0 } = await storm(rig, webhookUrl);
  const firstSeen = new Map<string, number>();
  const finals = new Map<string, number>();
  const deadline = Date.now() + 15 * 60_000;
  const running = (body: string) => body.includes("⏳");
  const quick = process.env.STORM_QUICK === "1";
  // The status comments of each delivery, by the run marker in their body: one pass over the comments per poll
  // (the bench shares the CPU with the app; a pass per delivery cost it ~10 ms every 25 ms).
  const byDelivery = () => {
    const out = new Map<string, { body: string }[]>();
    for (const c of rig.repo.comments) {
      const m = /aider-bot:run:(\S+) /.exec(c.body);
      if (m) out.set(m[1]!, [...(out.get(m[1]!) ?? []), c]);
    }
    return out;
  };
  for (;;) {
    // t0 is the sender thread's start, on the shared wall clock.
    const now = performance.timeOrigin + performance.now() - t0;
    const comments = byDelivery();
    const reacted = new Set(rig.repo.reactions.filter((r) => r.content === "eyes").map((r) => r.subject));
    for (const d of deliveries) {
      const mine = comments.get(d.id) ?? [];
      if (!firstSeen.has(d.id) && mine.length > 0 && reacted.has(`issues/comments/${d.commentId}`))
        firstSeen.set(d.id, now - d.sentAt);
      if (!finals.has(d.id) && mine.length > 0 && mine.every((c) => !running(c.body))) finals.set(d.id, now);
    }
    if (finals.size === deliveries.length || Date.now() > deadline) break;
    // STORM_QUICK=1: stop once every delivery has had its feedback (for profiling intake and triage; no run totals).
    if (quick && firstSeen.size === deliveries.length) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  const acks = sent.map((a) => a.ms);
  const statusComments = (id: string) => rig.repo.comments.filter((c) => c.body.includes(`aider-bot:run:${id} `));
  const lost = deliveries.filter((d) => statusComments(d.id).length === 0).length;
  const duplicated = deliveries.filter((d) => statusComments(d.id).length > 1).length;
  const orphans = rig.repo.comments.filter((c) => running(c.body)).length;
  const feedback = [...firstSeen.values()];
  const bad = sent.filter((a) => a.status < 200 || a.status >= 300).length;
  const fmt = (n: number) => (Number.isFinite(n) ? `${Math.round(n)} ms` : "n/a");
  console.log(
    `\n## Webhook storm — ${label} (${DELIVERIES} deliveries: ${deliveries.length} unique commands on ${ISSUES} issues, ${REDELIVERED} redeliveries)`,
  );
  console.log(
    `ack:            p50 ${fmt(percentile(acks, 50))}  p99 ${fmt(percentile(acks, 99))}  max ${fmt(Math.max(...acks))}  (target p99 < 50 ms)  non-2xx: ${bad}`,
  );
  console.log(
    `first feedback: p50 ${fmt(percentile(feedback, 50))}  p99 ${fmt(percentile(feedback, 99))}  seen for ${feedback.length}/${deliveries.length}  (target p50 < 1 s, p99 < 3 s)`,
  );
  for (const f of floor) {
    const ratio = percentile(acks, 99) / percentile(f.acks, 99);
    console.log(
      `  floor, ${f.label}: p50 ${fmt(percentile(f.acks, 50))}  p99 ${fmt(percentile(f.acks, 99))}  (app p99 ${ratio.toFixed(2)}× this)`,
    );
  }
  console.log(`all runs ended: ${finals.size}/${deliveries.length} after ${fmt(Math.max(0, ...finals.values()))}`);
  console.log(`lost: ${lost}  duplicated: ${duplicated}  orphan (still running): ${orphans}  (target 0 / 0 / 0)`);
}

function redisAvailable(): boolean {
  try {
    execFileSync("redis-server", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Both modes, or only `embedded` or `redis`. */
export async function runStormBench(only?: string): Promise<void> {
  const replies = Array.from({ length: DELIVERIES * 3 }, () => "getText fetches the URL and returns the body as text.");
  if (!only || only === "embedded") {
    const rig = await startRig({ files: FILES, permissions: { [USER]: "write" }, replies });
    try {
      const port = await freePort();
      const app = await rig.start(["serve"], { PORT: String(port), AIDER_BOT_CONCURRENCY: "4" });
      await measure("embedded (one process)", rig, `http://127.0.0.1:${port}/api/github/webhooks`);
      // Stopped as a deploy would (a profile asked for with BENCH_NODE_ARGS is written on a clean exit).
      await app.stop("SIGTERM");
    } finally {
      await rig.close();
    }
  }
  if (only === "embedded") return;
  if (!redisAvailable()) {
    console.log("\n## Webhook storm — redis: skipped (redis-server is not installed; `apt-get install redis-server`)");
    return;
  }
  const rig = await startRig({ files: FILES, permissions: { [USER]: "write" }, replies });
  const redisPort = await freePort();
  execFileSync("redis-server", [
    "--port",
    String(redisPort),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--daemonize",
    "yes",
  ]);
  try {
    const redis = { REDIS_URL: `redis://127.0.0.1:${redisPort}` };
    const port = await freePort();
    const help = spawnSync(process.execPath, ["dist/cli/main.js", "--help"], { encoding: "utf8" }).stdout;
    if (!/^\s+worker\b/m.test(help)) {
      console.log("\n## Webhook storm — redis: skipped (this build has no `aider-bot worker`)");
      return;
    }
    const receiver = await rig.start(["serve"], { ...redis, PORT: String(port), AIDER_BOT_ROLE: "receiver" });
    const workers = [
      await rig.start(["worker"], { ...redis, AIDER_BOT_CONCURRENCY: "2" }, "aider-bot worker ready"),
      await rig.start(["worker"], { ...redis, AIDER_BOT_CONCURRENCY: "2" }, "aider-bot worker ready"),
    ];
    await measure("redis, receiver + two workers", rig, `http://127.0.0.1:${port}/api/github/webhooks`);
    // How busy the queue kept Redis: jobs that wait their turn by polling show here as thousands of commands.
    const stats = execFileSync("redis-cli", ["-p", String(redisPort), "info", "stats"], { encoding: "utf8" });
    const commands = Number(/total_commands_processed:(\d+)/.exec(stats)?.[1] ?? NaN);
    console.log(`redis commands processed: ${commands} (${Math.round(commands / DELIVERIES)} per delivery)`);
    // Stopped as a deploy would (the receiver at once; the workers after their running jobs, which go back to the
    // queue past the shutdown grace): each writes a profile asked for with BENCH_NODE_ARGS.
    await Promise.all([receiver, ...workers].map((p) => p.stop("SIGTERM")));
  } finally {
    await rig.close();
    try {
      execFileSync("redis-cli", ["-p", String(redisPort), "shutdown", "nosave"], { stdio: "ignore" });
    } catch {
      // already stopped
    }
  }
}
