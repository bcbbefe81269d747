/**
 * `npm run bench cost`: what prompt caching saves on a run that reflects, measured side by side in one run.
 *
 * One repository of 700 generated TypeScript files (the repo map ranks all of them), three chat files, a read-only
 * conventions file, and a run of four model calls: the request, then three reflections on a failing test (the most a
 * run makes with the default `max_reflections: 3`). For each protocol in {@link PROTOCOLS}, the real provider client
 * (createProviderClient) talks to that provider's wire-level fake, which reports each answer's cache reads and
 * writes by the provider's documented rule (testkit/prompt-cache-rules.ts):
 * - Anthropic, Bedrock (SigV4-signed) and Vertex (token from the fake metadata server): fake-claude-server, Anthropic's
 *   rule (an entry at each breakpoint of 1,024+ tokens, reads found at a breakpoint or up to 20 blocks before it);
 * - OpenAI and Azure: fake-openai-cache-server, OpenAI's automatic rule (prompts of 1,024+ tokens, longest common
 *   prefix with an earlier request of the same `prompt_cache_key`, 128-token steps).
 * Each protocol makes, with caching on, a run against a cold cache and then a second job right after on the same fake
 * (another request on the same repository, within the cache lifetime: a warm cache); and both with caching off on a
 * fresh fake, the baselines of their ratios.
 *
 * Printed, per protocol: each round's share of prompt tokens read from the cache, and the billed-equivalent input
 * (uncached input 1×, cache writes at the protocol's write price, reads 0.1×) as a ratio to the run with caching
 * off; beside it, what Aider's documented caching (system prompt, examples, read-only files, repo map, chat files —
 * not the earlier rounds) would read on the same requests; and the floor no layout can beat with a cold cache (see
 * coldFloor): with Anthropic's 1.25× writes, round 1's write alone is about 0.3× of a four-call run's input, so a
 * cold run cannot reach 0.35× there — the second job, on a warm cache, is the figure that can.
 */
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { runCoder } from "../src/coder/run-coder.js";
import { createCoderDeps } from "../src/compose/create-coder-deps.js";
import { startFakeClaudeServer } from "../testkit/fake-claude-server.js";
import { startFakeGceMetadata, type FakeGceMetadata } from "../testkit/fake-gce-metadata.js";
import { startFakeOpenAiCacheServer } from "../testkit/fake-openai-cache-server.js";
import { createExec } from "../src/exec/create-exec.js";
import { countTokens, loadTokenizer } from "../src/llm/count-tokens.js";
import { createProviderClient } from "../src/llm/create-provider-client.js";
import { providerEndpoints, type ProviderEnv } from "../src/llm/provider-endpoints.js";
import type { ChatMessage, CompletionRequest, LlmClient, TokenUsage } from "../src/llm/types.js";
import { createGit } from "../src/workspace/create-git.js";
import { generateTsRepo } from "./repomap-bench.js";
import { createSecretRedactor } from "../src/security/redact-secrets.js";

const READ = 0.1;
const TARGET_RATIO = 0.35;
const TARGET_READ_SHARE = 0.9;

/** One provider-side cache: the fake server behind a real client. Runs on one session share its cache. */
interface CacheSession {
  llm: LlmClient;
  push(replies: string[]): void;
  /** The wire protocol of each request the fake answered, to check the calls went where the model name says. */
  protocols(): string[];
  close(): Promise<void>;
}

/** One protocol: the model name that routes to it, what its cache writes cost, and how to start its fake. */
export interface CachingProtocol {
  name: string;
  /** As a user writes it (`bedrock/…`): createProviderClient picks the protocol from it. */
  model: string;
  /** A cache write's price as a multiple of the input price: 1.25 for the Claude family, 1 for OpenAI's rule. */
  cacheWritePrice: number;
  start(): Promise<CacheSession>;
}

const ANTHROPIC_KEY = "sk-ant-bench-0123456789abcdef";
const OPENAI_KEY = "sk-openai-bench-0123456789abcdef";
const AZURE_KEY = "azure-bench-0123456789abcdef";
const AZURE_VERSION = "2024-10-21";
const VERTEX_TOKEN = "ya29.fake-bench-token";
const AWS = {
  accessKeyId: "AKIAFAKEBENCH1234567",
  secretAccessKey: "fake/bench+secret/key0123456789abcdefgh",
  sessionToken: "fake-bench-session-token-0123456789",
  region: "eu-west-3",
};

function providerClient(env: ProviderEnv, openAiBaseUrl: string): LlmClient {
  return createProviderClient({
    endpoints: providerEndpoints(env, { baseUrl: openAiBaseUrl, apiKey: OPENAI_KEY }),
    redactor: createSecretRedactor(),
    sleep: async () => undefined,
  });
}

/** A Claude protocol: the real client against fake-claude-server, credentials checked as the provider would. */
const claude = (name: string, model: string): CachingProtocol => ({
  name,
  model,
  cacheWritePrice: 1.25,
  async start() {
    const server = await startFakeClaudeServer([], {
      apiKey: ANTHROPIC_KEY,
      aws: AWS,
      vertexToken: VERTEX_TOKEN,
    });
    const llm = providerClient(
      {
        anthropicApiKey: ANTHROPIC_KEY,
        anthropicBaseUrl: server.url,
        awsRegion: AWS.region,
        awsAccessKeyId: AWS.accessKeyId,
        awsSecretAccessKey: AWS.secretAccessKey,
        awsSessionToken: AWS.sessionToken,
        bedrockBaseUrl: server.url,
        vertexRegion: "us-east5",
        vertexProjectId: "bench-project",
        vertexBaseUrl: `${server.url}/v1`,
      },
      "http://127.0.0.1:9/v1",
    );
    return {
      llm,
      push: (r) => server.push(...r),
      protocols: () => server.requests.map((q) => q.protocol),
      close: () => server.close(),
    };
  },
});

/** An OpenAI-rule protocol: the real client against fake-openai-cache-server (OpenAI's API, or Azure's). */
const openAiRule = (name: string, model: string): CachingProtocol => ({
  name,
  model,
  cacheWritePrice: 1,
  async start() {
    const server = await startFakeOpenAiCacheServer([], {
      azureKey: AZURE_KEY,
      apiVersion: AZURE_VERSION,
      openaiKey: OPENAI_KEY,
    });
    const llm = providerClient(
      { azureEndpoint: server.url, azureApiKey: AZURE_KEY, azureApiVersion: AZURE_VERSION },
      `${server.url}/v1`,
    );
    return {
      llm,
      push: (r) => server.push(...r),
      protocols: () => server.requests.map((q) => q.protocol),
      close: () => server.close(),
    };
  },
});

export const PROTOCOLS: CachingProtocol[] = [
  openAiRule("openai", "openai/gpt-4o"),
  openAiRule("azure", "azure/gpt-4o-bench"),
  claude("anthropic", "anthropic/claude-sonnet-4-6"),
  claude("bedrock", "bedrock/eu.anthropic.claude-sonnet-4-6-20250929-v1:0"),
  claude("vertex", "vertex/claude-sonnet-4-6@20250929"),
];

const messageTokens = (m: ChatMessage) => 3 + countTokens(m.content);

/** The file the run edits, and two larger ones it reads: a request's typical chat. */
const CHAT = ["pkg0/module0.ts", "src/orders-service.ts", "src/billing-service.ts"];

/** A service module of `n` small methods (about 10 tokens a line), as a chat file of realistic size. */
function serviceFile(name: string, n: number): string {
  const methods = Array.from(
    { length: n },
    (_, i) =>
      `  /** Loads ${name} record ${i} and checks its state before returning it. */\n  async load${i}(id: string): Promise<Record${i % 7}> {\n    const row = await this.db.get(\`${name}:${i}:\${id}\`);\n    if (!row) throw new Error(\`${name} ${i} \${id} not found\`);\n    return row as Record${i % 7};\n  }\n`,
  );
  return `export class ${name[0]!.toUpperCase()}${name.slice(1)}Service {\n  constructor(private readonly db: Db) {}\n\n${methods.join("\n")}}\n`;
}
const ROUNDS = 4;

function replies(): string[] {
  const line = (n: number) =>
    `export const helper0 = (n: number): string => String(n * 2);${n ? ` // round ${n}` : ""}\n`;
  return Array.from(
    { length: ROUNDS },
    (_, i) =>
      `Round ${i + 1}: adjusting helper0.\n\npkg0/module0.ts\n\`\`\`\n<<<<<<< SEARCH\n${line(i)}=======\n${line(i + 1)}>>>>>>> REPLACE\n\`\`\`\n`,
  );
}

interface Call {
  request: CompletionRequest;
  usage: TokenUsage;
}

const REQUEST = "Make helper0 in pkg0/module0.ts mark each round it was changed in.";
/** A second job's request on the same repository: other words, the same files and map. */
const SECOND_REQUEST = "Once more: have helper0 (pkg0/module0.ts) record the round of each change.";

/**
 * The `prompt_cache_key` of the bench's repository, made as a job makes it (run/code-phase.ts: one per repository,
 * hashed), so a second job on the same repository is routed to the cache the first one filled.
 */
const REPO_CACHE_KEY = `aider-bot-${createHash("sha256").update("bench/generated-700").digest("hex").slice(0, 16)}`;

/**
 * One run of the coder on `session` (its cache as earlier runs on it left it), with caching on or off. Caching on
 * uses the repository's `prompt_cache_key`, as a job does.
 */
async function oneRun(
  root: string,
  protocol: CachingProtocol,
  session: CacheSession,
  cache: boolean,
  message = REQUEST,
): Promise<Call[]> {
  const exec = createExec({ sourceEnv: process.env });
  const git = createGit(exec, { name: "Bench", email: "bench@example.com" });
  await git.run(root, ["checkout", "-q", "--", "."]);
  session.push(replies());
  const calls: Call[] = [];
  const llm: LlmClient = {
    async complete(req) {
      const result = await session.llm.complete(req);
      calls.push({ request: req, usage: result.usage });
      return result;
    },
  };
  const result = await runCoder(
    {
      message,
      files: CHAT,
      readFiles: ["CONVENTIONS.md"],
      editFormat: "diff",
      model: protocol.model,
      lintCommands: [],
      autoTest: true,
      testCommand: `grep -q 'round ${ROUNDS}' pkg0/module0.ts || { echo 'FAIL helper0: expected round ${ROUNDS}'; exit 1; }`,
      maxReflections: ROUNDS - 1,
      mapTokens: 1024,
      commit: false,
      protectedPaths: [],
      budget: {},
      commandTimeoutMs: 60_000,
      cacheKey: REPO_CACHE_KEY,
      ...(cache ? {} : { promptCache: false }),
    },
    createCoderDeps({ root, exec, git, llm, protectedPaths: [], cacheDir: path.join(root, ".bench-cache") }),
  );
  if (result.outcome !== "changed") throw new Error(`the bench run ended ${result.outcome}, not with its edit`);
  const wrong = session.protocols().filter((p) => p !== protocol.name);
  if (wrong.length)
    throw new Error(
      `${protocol.name}: ${wrong.length} request(s) reached the fake as ${wrong.join(", ")}; check PROTOCOLS`,
    );
  return calls;
}

/**
 * Caching on: a cold run, then a second job right after on the same fake (its cache warm; another request); caching
 * off on a fresh fake.
 */
async function fourRuns(root: string, protocol: CachingProtocol) {
  const cached = await protocol.start();
  try {
    const cold = await oneRun(root, protocol, cached, true);
    const warm = await oneRun(root, protocol, cached, true, SECOND_REQUEST);
    const uncached = await protocol.start();
    try {
      const off = await oneRun(root, protocol, uncached, false);
      return { cold, warm, off, offWarm: await oneRun(root, protocol, uncached, false, SECOND_REQUEST) };
    } finally {
      await uncached.close();
    }
  } finally {
    await cached.close();
  }
}

/** Billed-equivalent input of a call: uncached input 1×, cache writes at `writePrice`, reads 0.1×. */
function billed(u: TokenUsage, writePrice: number): number {
  const read = u.cacheRead ?? 0;
  const write = u.cacheWrite ?? 0;
  return u.prompt - read - write + write * writePrice + read * READ;
}

/**
 * Aider's caching on the same requests: its breakpoints sit on the system prompt and examples, the read-only files
 * and repo map, and the chat files — the stable part; its earlier rounds come before the chat files and are never
 * cached. A cold run's round one writes the stable part (a warm run's reads it), later rounds read it, the rest is
 * input. Shares by tokenizer count.
 */
function aiderBilled(call: Call, firstOfCold: boolean, writePrice: number): { billed: number; read: number } {
  const sizes = call.request.messages.map(messageTokens);
  const total = sizes.reduce((a, b) => a + b, 0);
  const stableEnd = call.request.messages.findIndex((m) => m.cacheBreakpoint);
  const stable = sizes.slice(0, stableEnd + 1).reduce((a, b) => a + b, 0);
  const share = stableEnd < 0 ? 0 : stable / total;
  const cached = Math.round(call.usage.prompt * share);
  if (firstOfCold) return { billed: call.usage.prompt - cached + cached * writePrice, read: 0 };
  return { billed: call.usage.prompt - cached + cached * READ, read: cached };
}

const pct = (n: number) => `${(n * 100).toFixed(1)} %`;
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const share = (c: Call) => (c.usage.cacheRead ?? 0) / c.usage.prompt;

/**
 * The least a cold run of these requests can bill, whatever its layout, under a rule whose writes cost `w`: round 1
 * is new to the cache, so it is written whole; each later round at best reads the previous request whole and writes
 * what it adds — except the last round, whose addition no round reads (plain input). Sizes are the uncached run's.
 */
function coldFloor(prompts: number[], w: number): number {
  let billed = w * prompts[0]!;
  for (let k = 1; k < prompts.length; k++) {
    const added = Math.max(0, prompts[k]! - prompts[k - 1]!);
    billed += READ * prompts[k - 1]! + (k === prompts.length - 1 ? 1 : w) * added;
  }
  return billed / sum(prompts);
}

/** A run's figures against the same run with caching off. */
function summarise(on: Call[], off: Call[], writePrice: number, warm: boolean) {
  const uncached = sum(off.map((c) => c.usage.prompt));
  return {
    ratio: sum(on.map((c) => billed(c.usage, writePrice))) / uncached,
    firstThree:
      sum(on.slice(0, 3).map((c) => billed(c.usage, writePrice))) / sum(off.slice(0, 3).map((c) => c.usage.prompt)),
    aider: sum(on.map((c, i) => aiderBilled(c, !warm && i === 0, writePrice).billed)) / uncached,
    shares: on.map(share),
  };
}

function printRounds(label: string, on: Call[], writePrice: number, warm: boolean): void {
  console.log(`${label}\n`);
  console.log("| round | prompt tokens | read from cache | written to cache | read share | Aider's read share |");
  console.log("| --- | --- | --- | --- | --- | --- |");
  on.forEach((c, i) => {
    const aider = aiderBilled(c, !warm && i === 0, writePrice);
    console.log(
      `| ${i + 1} | ${fmt(c.usage.prompt)} | ${fmt(c.usage.cacheRead ?? 0)} | ${fmt(c.usage.cacheWrite ?? 0)} | ${pct(share(c))} | ${pct(aider.read / c.usage.prompt)} |`,
    );
  });
  console.log("");
}

export async function runCostBench(): Promise<void> {
  await loadTokenizer();
  const root = await mkdtemp(path.join(os.tmpdir(), "bench-cost-"));
  // Vertex's client gets its token from Google's auth library, which finds the metadata server through this
  // variable (as on GCE/GKE); the bench's fake issues the token the fake Vertex endpoint checks.
  const saved = { host: process.env.GCE_METADATA_HOST, creds: process.env.GOOGLE_APPLICATION_CREDENTIALS };
  let metadata: FakeGceMetadata | undefined;
  try {
    metadata = await startFakeGceMetadata({ token: VERTEX_TOKEN, projectId: "bench-project" });
    process.env.GCE_METADATA_HOST = metadata.host;
    delete process.env.GOOGLE_APPLICATION_CREDENTIALS;
    await generateTsRepo(root, 700);
    const rules = Array.from({ length: 150 }, (_, i) => `- Rule ${i + 1}: keep module ${i} small, named and tested.`);
    await writeFile(path.join(root, "CONVENTIONS.md"), `# Conventions\n\n${rules.join("\n")}\n`);
    await mkdir(path.join(root, "src"), { recursive: true });
    await writeFile(path.join(root, "src", "orders-service.ts"), serviceFile("orders", 60));
    await writeFile(path.join(root, "src", "billing-service.ts"), serviceFile("billing", 60));
    const exec = createExec({ sourceEnv: process.env });
    const git = createGit(exec, { name: "Bench", email: "bench@example.com" });
    await git.run(root, ["init", "-q", "-b", "main"]);
    await writeFile(path.join(root, ".gitignore"), ".bench-cache/\n");
    await git.run(root, ["add", "-A"]);
    await git.run(root, ["commit", "-q", "-m", "generated"]);
    console.log(
      `\n## Prompt caching: a ${ROUNDS}-call run (request + ${ROUNDS - 1} reflections), 700-file repository\n`,
    );
    const rows: string[] = [];
    for (const protocol of PROTOCOLS) {
      const { cold, warm, off, offWarm } = await fourRuns(root, protocol);
      const w = protocol.cacheWritePrice;
      console.log(`### ${protocol.name} (${protocol.model}; cache writes ${w}×, reads ${READ}×)\n`);
      printRounds("cold cache (first run):", cold, w, false);
      printRounds(
        "warm cache (a second job right after on the same repository: another request, the repository's cache key):",
        warm,
        w,
        true,
      );
      const c = summarise(cold, off, w, false);
      const h = summarise(warm, offWarm, w, true);
      const text = (x: Call) => JSON.stringify(x.request.messages.map(({ role, content }) => [role, content]));
      const sameLayout = cold.length === off.length && cold.every((x, i) => text(x) === text(off[i]!));
      const later = c.shares.slice(1);
      const prompts = off.map((x) => x.usage.prompt);
      const floor = coldFloor(prompts, w);
      const roundOne = (w * prompts[0]!) / sum(prompts);
      const met = (x: number) => (x <= TARGET_RATIO ? "met" : "NOT met");
      console.log(
        `billed-equivalent input, caching on / off: cold ${c.ratio.toFixed(3)}× over ${ROUNDS} calls (target ≤ ${TARGET_RATIO}×: ${met(c.ratio)}; ${c.firstThree.toFixed(3)}× over the first 3) · second job, warm cache: ${h.ratio.toFixed(3)}× (target: ${met(h.ratio)})`,
      );
      console.log(
        `Aider's cached parts on the same requests: cold ${c.aider.toFixed(3)}×, second job ${h.aider.toFixed(3)}×   ·   later rounds read from cache: ${later.map(pct).join(", ")} (target ≥ ${pct(TARGET_READ_SHARE)}: ${later.every((s) => s >= TARGET_READ_SHARE) ? "met" : "NOT met"})`,
      );
      console.log(
        `floor of a cold run, any layout (round 1 written whole at ${w}×, each later round reading the previous one whole and writing only what it adds): ${floor.toFixed(3)}× — cold is ${(c.ratio - floor).toFixed(3)}× above it${floor > TARGET_RATIO ? `; ≤ ${TARGET_RATIO}× is out of reach cold: round 1's write alone is ${roundOne.toFixed(3)}× of the uncached input` : ""} · caching off sent ${sameLayout ? "the same" : "DIFFERENT"} messages\n`,
      );
      rows.push(
        `| ${protocol.name} | ${w}× | ${fmt(cold[0]!.usage.prompt)} → ${fmt(cold.at(-1)!.usage.prompt)} | ${later.map(pct).join(", ")} | **${c.ratio.toFixed(3)}×** (floor ${floor.toFixed(3)}×) | ${c.aider.toFixed(3)}× | ${pct(h.shares[0]!)} | **${h.ratio.toFixed(3)}×** | ${h.aider.toFixed(3)}× |`,
      );
    }
    console.log("### Summary: billed-equivalent input, caching on / off\n");
    console.log(
      "| protocol | write price | prompt tokens, rounds 1–4 | read from cache, rounds 2–4 | cold run | Aider, cold | second job: round 1 read | second job | Aider, second job |",
    );
    console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for (const row of rows) console.log(row);
  } finally {
    await metadata?.close();
    if (saved.host === undefined) delete process.env.GCE_METADATA_HOST;
    else process.env.GCE_METADATA_HOST = saved.host;
    if (saved.creds !== undefined) process.env.GOOGLE_APPLICATION_CREDENTIALS = saved.creds;
    await rm(root, { recursive: true, force: true });
  }
}
