/**
 * `npm run bench action-start`: how long the GitHub Action takes from the start of its job step to its first GitHub
 * call, on a runner-like clean checkout of the action (a fresh clone of this repository's HEAD, no node_modules),
 * side by side in one run:
 * - from source: action.yml's first step runs `npm ci` and `npm run build` (a branch such as main);
 * - bundled: the checkout carries `action-dist/` as a release tag does (built beforehand by scripts/build-action.mjs,
 *   as the release is), so the first step only picks the entry.
 * Both then start `node <entry> action` on an issue_comment event; the clock stops at the first request to a
 * stand-in GitHub API on 127.0.0.1. `npm ci` needs the npm registry (this machine reaches it; a runner does too).
 */
import { execFile, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { parse } from "yaml";

const run = promisify(execFile);
const ROOT = path.resolve(".");

/** A GitHub API that notes when its first request came and answers every request 404. */
async function firstCallServer(): Promise<{ url: string; first: Promise<number>; close(): Promise<void> }> {
  let resolveFirst!: (t: number) => void;
  const first = new Promise<number>((r) => (resolveFirst = r));
  const server = http.createServer((req, res) => {
    resolveFirst(performance.now());
    res.writeHead(404, { "content-type": "application/json" }).end('{"message":"Not Found"}');
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    first,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

function eventPayload() {
  return {
    action: "created",
    repository: {
      id: 1,
      name: "widgets",
      full_name: "acme/widgets",
      owner: { login: "acme", id: 2, type: "Organization" },
      default_branch: "main",
      private: false,
      clone_url: "https://github.com/acme/widgets.git",
      html_url: "https://github.com/acme/widgets",
    },
    issue: {
      number: 7,
      title: "t",
      body: "",
      labels: [],
      user: { login: "ann", id: 9, type: "User" },
      updated_at: "2026-01-01T00:00:00Z",
    },
    comment: { id: 501, body: "/aider make add add", user: { login: "ann", id: 9, type: "User" } },
    sender: { login: "ann", id: 9, type: "User" },
  };
}

/** Seconds from the first step's start to the first GitHub call, in a fresh clone (with the bundle when given). */
async function measure(bundle: string | null): Promise<number> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "action-start-"));
  const api = await firstCallServer();
  try {
    const action = path.join(dir, "action");
    await run("git", ["clone", "-q", "--no-hardlinks", ROOT, action]);
    if (bundle) await run("cp", ["-r", bundle, path.join(action, "action-dist")]);
    const yml = parse(await readFile(path.join(ROOT, "action.yml"), "utf8")) as {
      runs: { steps: { id?: string; run?: string }[] };
    };
    const prepare = yml.runs.steps.find((s) => s.id !== "run")!.run!;
    const eventPath = path.join(dir, "event.json");
    await writeFile(eventPath, JSON.stringify(eventPayload()));
    await writeFile(path.join(dir, "github-env"), "");
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: dir,
      GITHUB_ACTION_PATH: action,
      GITHUB_ENV: path.join(dir, "github-env"),
    };
    const t0 = performance.now();
    await run("bash", ["-e", "-c", prepare], { cwd: action, env, maxBuffer: 64 * 1024 * 1024 });
    const entry = /AIDER_BOT_ENTRY=(.+)/.exec(await readFile(path.join(dir, "github-env"), "utf8"))![1]!;
    const child = spawn(process.execPath, [entry, "action"], {
      cwd: dir,
      stdio: "ignore",
      env: {
        ...env,
        GITHUB_ACTIONS: "true",
        GITHUB_EVENT_NAME: "issue_comment",
        GITHUB_EVENT_PATH: eventPath,
        GITHUB_REPOSITORY: "acme/widgets",
        GITHUB_API_URL: api.url,
        GITHUB_SERVER_URL: api.url,
        GITHUB_WORKSPACE: dir,
        GITHUB_OUTPUT: path.join(dir, "out"),
        GITHUB_STEP_SUMMARY: path.join(dir, "summary"),
        RUNNER_TEMP: dir,
        INPUT_OPENAI_API_KEY: "sk-bench",
        INPUT_OPENAI_BASE_URL: api.url,
        INPUT_MODEL: "gpt-4o",
        INPUT_CONFIG_PATH: ".github/aider.yml",
        INPUT_GITHUB_TOKEN: "ghs_bench",
        INPUT_BOT_LOGIN: "github-actions[bot]",
        AIDER_BOT_THROTTLE: "0",
      },
    });
    const exited = new Promise<number>((_, reject) =>
      child.on("exit", (code) => reject(new Error(`the action exited (${code}) before calling GitHub`))),
    );
    const t1 = await Promise.race([api.first, exited]);
    child.kill("SIGKILL");
    return (t1 - t0) / 1000;
  } finally {
    await api.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function runActionStartBench(): Promise<void> {
  console.log("\naction start-up: first step's start → first GitHub call, fresh clone of the action (HEAD)");
  const bundleDir = await mkdtemp(path.join(os.tmpdir(), "action-bundle-"));
  try {
    await run("npm", ["run", "build", "--silent"], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
    await run(process.execPath, [path.join(ROOT, "scripts/build-action.mjs"), path.join(bundleDir, "action-dist")]);
    const bundled = [
      await measure(path.join(bundleDir, "action-dist")),
      await measure(path.join(bundleDir, "action-dist")),
    ];
    const fromSource = await measure(null);
    const best = Math.min(...bundled);
    console.log(`  from source (npm ci + build): ${fromSource.toFixed(1)} s`);
    console.log(
      `  bundled (release tag):        ${best.toFixed(1)} s (runs: ${bundled.map((s) => s.toFixed(1)).join(", ")})`,
    );
    console.log(`  bundled / from source:        ${(best / fromSource).toFixed(3)}×  (target: bundled < 5 s)`);
  } finally {
    await rm(bundleDir, { recursive: true, force: true });
  }
}
