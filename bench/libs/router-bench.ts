/**
 * The fake GitHub's request overhead, as the e2e harness pays it: Octokit-shaped calls (keep-alive, JSON bodies)
 * against `startFakeGitHub`, a mix of the routes an `/aider` run calls. Printed: the median time per call over
 * several rounds, and the router's own share (`routeRequest` timed in-process for the same calls), so a change of
 * router can be judged against the request it sits in.
 */
import http from "node:http";
import { startFakeGitHub } from "../../testkit/start-fake-github.js";
import { seedIssue, seedPullRequest, seedRepo } from "../../testkit/seed-repo.js";
import { routeRequest } from "../../testkit/fake-github-routes.js";
import { APP_ROUTES } from "../../testkit/fake-app-routes.js";
import { CHECK_RUN_ROUTES } from "../../testkit/fake-check-run-routes.js";
import { PR_CONTEXT_ROUTES } from "../../testkit/fake-github-pr-routes.js";
import { ISSUE_ROUTES } from "../../testkit/fake-issue-routes.js";
import { PULL_ROUTES } from "../../testkit/fake-pull-routes.js";
import { REPO_ROUTES } from "../../testkit/fake-repo-routes.js";
import { createRouteTable, type RepoCall } from "../../testkit/fake-route-table.js";
import { fixed, median, msSince } from "./bench-stats.js";

const ROUNDS = 7;
const CALLS_PER_ROUND = 400;

export async function runRouterBench(): Promise<void> {
  const fake = await startFakeGitHub({ sourceEnv: process.env });
  try {
    const repo = await seedRepo(fake, {
      owner: "acme",
      name: "widgets",
      files: { "README.md": "# widgets\n", "src/a.ts": "export const a = 1;\n" },
      permissions: { alice: "write" },
    });
    const pr = await seedPullRequest(fake, repo, {
      title: "A change",
      head: "feature",
      user: "alice",
      files: { "src/b.ts": "export const b = 2;\n" },
    });
    const issue = seedIssue(fake, repo, { title: "A bug", body: "It breaks.", user: "alice" });
    const base = "/repos/acme/widgets";
    const calls: { method: string; path: string; body?: unknown }[] = [
      { method: "GET", path: "/app/installations" },
      { method: "GET", path: base },
      { method: "GET", path: `${base}/collaborators/alice/permission` },
      { method: "GET", path: `${base}/issues/${issue.number}` },
      { method: "GET", path: `${base}/issues/${issue.number}/comments?per_page=100` },
      { method: "POST", path: `${base}/issues/${issue.number}/comments`, body: { body: "working on it" } },
      { method: "GET", path: `${base}/pulls/${pr.number}` },
      { method: "GET", path: `${base}/pulls/${pr.number}/comments` },
      { method: "POST", path: `${base}/check-runs`, body: { name: "aider-bot", head_sha: "0".repeat(40) } },
      { method: "GET", path: `${base}/contents/README.md?ref=main` },
    ];
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const send = (c: (typeof calls)[number]) =>
      new Promise<void>((resolve, reject) => {
        const url = new URL(`${fake.apiUrl}${c.path}`);
        const payload = c.body === undefined ? undefined : JSON.stringify(c.body);
        const req = http.request(
          url,
          { method: c.method, agent, headers: { authorization: "token x", "content-type": "application/json" } },
          (res) => {
            res.resume();
            res.on("end", () =>
              res.statusCode! < 400 ? resolve() : reject(new Error(`${c.path}: ${res.statusCode}`)),
            );
          },
        );
        req.on("error", reject);
        req.end(payload);
      });
    // In-process: the router alone for the same calls (no HTTP, no JSON), through a context like the server's.
    const ctx = {
      state: fake.state,
      exec: fake.exec,
      bareDir: fake.bareDir,
      apiUrl: fake.apiUrl,
      webUrl: fake.webUrl,
    };
    const route = (c: (typeof calls)[number]) => {
      const url = new URL(`http://x${c.path}`);
      return routeRequest(ctx, {
        method: c.method,
        segments: url.pathname.split("/").filter(Boolean),
        query: url.searchParams,
        body: (c.body ?? {}) as Record<string, unknown>,
      });
    };
    for (const c of calls) await send(c); // warm: caches, sockets, JIT
    const perCall: number[] = [];
    const routedPerCall: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let start = process.hrtime.bigint();
      for (let i = 0; i < CALLS_PER_ROUND; i++) await send(calls[i % calls.length]!);
      perCall.push(msSince(start) / CALLS_PER_ROUND);
      start = process.hrtime.bigint();
      for (let i = 0; i < CALLS_PER_ROUND; i++) await route(calls[i % calls.length]!);
      routedPerCall.push(msSince(start) / CALLS_PER_ROUND);
    }
    agent.destroy();
    // The table lookup alone (what the route table adds to a request), the same mix of paths.
    const findApp = createRouteTable(APP_ROUTES);
    const findRepo = createRouteTable<RepoCall>([
      ...PR_CONTEXT_ROUTES,
      ...REPO_ROUTES,
      ...ISSUE_ROUTES,
      ...PULL_ROUTES,
      ...CHECK_RUN_ROUTES,
    ]);
    const paths = calls.map((c) => ({
      method: c.method,
      segments: new URL(`http://x${c.path}`).pathname.split("/").filter(Boolean),
    }));
    const lookups: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < 100_000; i++) {
        const p = paths[i % paths.length]!;
        if (!findApp(p.method, p.segments)) findRepo(p.method, p.segments.slice(3));
      }
      lookups.push(msSince(start) / 100_000);
    }
    const http_ = median(perCall);
    const routed = median(routedPerCall);
    console.log(`\n== fake GitHub router (${ROUNDS} rounds × ${CALLS_PER_ROUND} calls, ${calls.length}-call mix)`);
    console.log(`  HTTP request to the fake, median per call   ${fixed(http_ * 1000, 0)} µs`);
    console.log(`  routeRequest alone (handlers included)      ${fixed(routed * 1000, 0)} µs`);
    console.log(`  router + handlers share of a request        ${fixed((100 * routed) / http_, 1)} %`);
    console.log(`  route-table lookup alone                    ${fixed(median(lookups) * 1000, 2)} µs`);
  } finally {
    await fake.close();
  }
}
