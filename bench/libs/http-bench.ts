/**
 * The HTTP client under Octokit: ours (`createHttpFetch`, node:http with keep-alive agents, the answer read whole)
 * against undici 7's `fetch` with its own keep-alive `Agent`, and Node's built-in `fetch` (the undici Node bundles).
 * Each serves the same Octokit calls (`GET` an issue comment's JSON of ~3 kB, as GitHub sends it, gzip) to a server
 * in a child process, so the CPU measured is the client's alone. Printed: the median CPU and wall time per call of
 * each client over several interleaved rounds, and their ratio to ours.
 */
import { fork } from "node:child_process";
import { once } from "node:events";
import { Octokit } from "@octokit/core";
import { Agent, fetch as undiciFetch } from "undici";
import { createHttpFetch } from "../../src/github/http-fetch.js";
import { cpuMs, fixed, median, msSince, ratio } from "./bench-stats.js";

const ROUNDS = 7;
const CALLS = 300;

/** A GitHub-like server: one JSON body of ~3 kB, gzipped, with GitHub's usual headers. */
const SERVER = `
const http = require("node:http");
const zlib = require("node:zlib");
const comment = { id: 1, body: "x".repeat(1500), user: { login: "alice", id: 1, type: "User" },
  created_at: new Date().toISOString(), updated_at: new Date().toISOString(),
  html_url: "https://github.com/acme/widgets/issues/1#issuecomment-1", reactions: { total_count: 0, "+1": 0 } };
const body = zlib.gzipSync(JSON.stringify({ ...comment, extra: "y".repeat(1200) }));
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => res.writeHead(200, { "content-type": "application/json; charset=utf-8",
    "content-encoding": "gzip", "x-ratelimit-limit": "5000", "x-ratelimit-remaining": "4999",
    "x-github-request-id": "ABCD:1234", etag: 'W/"abc"', "cache-control": "private, max-age=60" }).end(body));
});
server.keepAliveTimeout = 60000;
server.listen(0, "127.0.0.1", () => process.send(server.address().port));
`;

type Fetch = typeof fetch;

export async function runHttpBench(): Promise<void> {
  const server = fork("-e", [SERVER], { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  server.unref();
  const [port] = (await once(server, "message")) as [number];
  const baseUrl = `http://127.0.0.1:${port}`;
  const agent = new Agent({ keepAliveTimeout: 60_000 });
  const clients: [string, Fetch][] = [
    ["ours (node:http)", createHttpFetch()],
    [
      "undici 7 fetch + Agent",
      ((url, init) => undiciFetch(url as string, { ...init, dispatcher: agent } as never)) as Fetch,
    ],
    ["Node's fetch (undici " + process.versions.undici + ")", globalThis.fetch],
  ];
  const octokits = clients.map(([name, f]) => ({ name, octokit: new Octokit({ baseUrl, request: { fetch: f } }) }));
  const call = (o: Octokit) =>
    o.request("GET /repos/{owner}/{repo}/issues/comments/{comment_id}", {
      owner: "acme",
      repo: "widgets",
      comment_id: 1,
    });
  for (const { octokit } of octokits) for (let i = 0; i < 50; i++) await call(octokit); // warm
  const cpu = new Map<string, number[]>();
  const wall = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const { name, octokit } of octokits) {
      const start = process.hrtime.bigint();
      const used = await cpuMs(async () => {
        for (let i = 0; i < CALLS; i++) await call(octokit);
      });
      (cpu.get(name) ?? cpu.set(name, []).get(name)!).push((used * 1000) / CALLS);
      (wall.get(name) ?? wall.set(name, []).get(name)!).push((msSince(start) * 1000) / CALLS);
    }
  }
  server.kill();
  await agent.close();
  const ours = median(cpu.get(clients[0]![0])!);
  console.log(`\n== HTTP client under Octokit (${ROUNDS} rounds × ${CALLS} calls, client CPU per call, median)`);
  for (const [name] of clients) {
    const c = median(cpu.get(name)!);
    const w = median(wall.get(name)!);
    console.log(
      `  ${name.padEnd(30)} CPU ${fixed(c, 0).padStart(5)} µs  wall ${fixed(w, 0).padStart(5)} µs  CPU ×ours ${ratio(c, ours)}`,
    );
  }
}
