/**
 * `npm run bench cost`: what prompt caching saves on a run that reflects, measured side by side in one run.
 *
 * One repository of 700 generated TypeScript files (the repo map ranks all of them), three chat files, a read-only
 * conventions file, and a run of four model calls: the request, then three reflections on a failing test (the most a
 * run makes with the default `max_reflections: 3`). The same run is made with caching on and with caching off, for
 * each protocol in {@link PROTOCOLS}:
 * - `openai`: the scripted OpenAI-compatible server, which reports `cached_tokens` by OpenAI's rule (prompts of
 *   1,024+ tokens, longest common prefix with an earlier request of the same `prompt_cache_key`, 128-token steps);
 * - `anthropic (rule)`: Anthropic's rule (a cache entry at each breakpoint, ≥ 1,024 tokens, reads found at a
 *   breakpoint or up to 20 blocks before it) applied to the requests exactly as the coder sent them.
 * The native providers' wire fakes (Anthropic, Bedrock, Vertex, Azure) plug in as more entries: a protocol only has
 * to answer the scripted replies and report each call's usage (`cacheRead`, `cacheWrite`).
 *
 * Printed, per protocol: each round's share of prompt tokens read from the cache, and the billed-equivalent input
 * (uncached input 1×, cache writes 1.25×, reads 0.1×) as a ratio to the same run with caching off; beside it, what
 * Aider's documented caching (system prompt, examples, read-only files, repo map, chat files — not the earlier
 * rounds) would read on the same requests.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { runCoder } from "../src/coder/run-coder.js";
import { createCoderDeps } from "../src/compose/create-coder-deps.js";
import { createExec } from "../src/exec/create-exec.js";
import { countTokens, loadTokenizer } from "../src/llm/count-tokens.js";
import { createLlmClient } from "../src/llm/create-llm-client.js";
import type { ChatMessage, CompletionRequest, LlmClient, TokenUsage } from "../src/llm/types.js";
import { createGit } from "../src/workspace/create-git.js";
import { startScriptedLlmServer } from "../src/demo/scripted-llm-server.js";
import { anthropicCacheRule } from "./lib/anthropic-cache-rule.js";
import { generateTsRepo } from "./repomap-bench.js";

const WRITE = 1.25;
const READ = 0.1;
const TARGET_RATIO = 0.35;
const TARGET_READ_SHARE = 0.9;

/** One protocol's caching fake: answers the scripted replies, reports each call's usage as its provider would. */
export interface CachingProtocol {
  name: string;
  start(replies: string[]): Promise<{ llm: LlmClient; close(): Promise<void> }>;
}

/** The OpenAI-compatible client against the scripted server (OpenAI's automatic caching rule). */
const openAi: CachingProtocol = {
  name: "openai (scripted server)",
  async start(replies) {
    const server = await startScriptedLlmServer(replies);
    const llm = createLlmClient({ baseUrl: server.baseUrl, apiKey: "sk-bench", sleep: async () => undefined });
    return { llm, close: () => server.close() };
  },
};

const messageTokens = (m: ChatMessage) => 3 + countTokens(m.content);

/** Anthropic's rule over the layout as sent (breakpoints included), with the replies from the scripted server. */
const anthropicRule: CachingProtocol = {
  name: "anthropic (breakpoint rule)",
  async start(replies) {
    const server = await startScriptedLlmServer(replies);
    const inner = createLlmClient({ baseUrl: server.baseUrl, apiKey: "sk-bench", sleep: async () => undefined });
    const rule = anthropicCacheRule(messageTokens);
    const llm: LlmClient = {
      async complete(req) {
        const result = await inner.complete(req);
        // Caching off sends no breakpoints: then nothing is read or written, as with Anthropic.
        const usage = rule.usage(
          req.cache === false ? req.messages.map(({ role, content }) => ({ role, content })) : req.messages,
        );
        return { ...result, usage: { ...usage, completion: result.usage.completion } };
      },
    };
    return { llm, close: () => server.close() };
  },
};

/** After the merge: add the providers' wire fakes here (e.g. `{ name: "bedrock", start: … }`). */
export const PROTOCOLS: CachingProtocol[] = [openAi, anthropicRule];

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

async function oneRun(root: string, protocol: CachingProtocol, cache: boolean): Promise<Call[]> {
  const exec = createExec({ sourceEnv: process.env });
  const git = createGit(exec, { name: "Bench", email: "bench@example.com" });
  await git.run(root, ["checkout", "-q", "--", "."]);
  const fake = await protocol.start(replies());
  const calls: Call[] = [];
  const llm: LlmClient = {
    async complete(req) {
      const result = await fake.llm.complete(req);
      calls.push({ request: req, usage: result.usage });
      return result;
    },
  };
  try {
    const result = await runCoder(
      {
        message: "Make helper0 in pkg0/module0.ts mark each round it was changed in.",
        files: CHAT,
        readFiles: ["CONVENTIONS.md"],
        editFormat: "diff",
        model: "claude-sonnet-4",
        lintCommands: [],
        autoTest: true,
        testCommand: `grep -q 'round ${ROUNDS}' pkg0/module0.ts || { echo 'FAIL helper0: expected round ${ROUNDS}'; exit 1; }`,
        maxReflections: ROUNDS - 1,
        mapTokens: 1024,
        commit: false,
        protectedPaths: [],
        budget: {},
        commandTimeoutMs: 60_000,
        ...(cache ? { cacheKey: `bench-${protocol.name}` } : { promptCache: false }),
      },
      createCoderDeps({ root, exec, git, llm, protectedPaths: [], cacheDir: path.join(root, ".bench-cache") }),
    );
    if (result.outcome !== "changed") throw new Error(`the bench run ended ${result.outcome}, not with its edit`);
  } finally {
    await fake.close();
  }
  return calls;
}

/** Billed-equivalent input of a call: uncached input 1×, cache writes 1.25×, reads 0.1×. */
function billed(u: TokenUsage): number {
  const read = u.cacheRead ?? 0;
  const write = u.cacheWrite ?? 0;
  return u.prompt - read - write + write * WRITE + read * READ;
}

/**
 * Aider's caching on the same requests: its breakpoints sit on the system prompt and examples, the read-only files
 * and repo map, and the chat files — the stable part; its earlier rounds come before the chat files and are never
 * cached. Round one writes the stable part, later rounds read it, the rest is input. Shares by tokenizer count.
 */
function aiderBilled(call: Call, first: boolean, writes: boolean): { billed: number; read: number } {
  const sizes = call.request.messages.map(messageTokens);
  const total = sizes.reduce((a, b) => a + b, 0);
  const stableEnd = call.request.messages.findIndex((m) => m.cacheBreakpoint);
  const stable = sizes.slice(0, stableEnd + 1).reduce((a, b) => a + b, 0);
  const share = stableEnd < 0 ? 0 : stable / total;
  const cached = Math.round(call.usage.prompt * share);
  if (first) return { billed: call.usage.prompt - cached + cached * (writes ? WRITE : 1), read: 0 };
  return { billed: call.usage.prompt - cached + cached * READ, read: cached };
}

const pct = (n: number) => `${(n * 100).toFixed(1)} %`;
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

export async function runCostBench(): Promise<void> {
  await loadTokenizer();
  const root = await mkdtemp(path.join(os.tmpdir(), "bench-cost-"));
  try {
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
    for (const protocol of PROTOCOLS) {
      const on = await oneRun(root, protocol, true);
      const off = await oneRun(root, protocol, false);
      const writes = protocol.name.startsWith("anthropic");
      console.log(`### ${protocol.name}`);
      console.log("| round | prompt tokens | read from cache | written to cache | read share | Aider's read share |");
      console.log("| --- | --- | --- | --- | --- | --- |");
      on.forEach((c, i) => {
        const aider = aiderBilled(c, i === 0, writes);
        console.log(
          `| ${i + 1} | ${fmt(c.usage.prompt)} | ${fmt(c.usage.cacheRead ?? 0)} | ${fmt(c.usage.cacheWrite ?? 0)} | ${pct((c.usage.cacheRead ?? 0) / c.usage.prompt)} | ${pct(aider.read / c.usage.prompt)} |`,
        );
      });
      const uncached = off.reduce((n, c) => n + c.usage.prompt, 0);
      const ours = on.reduce((n, c) => n + billed(c.usage), 0);
      const aider = on.reduce((n, c, i) => n + aiderBilled(c, i === 0, writes).billed, 0);
      const laterShares = on.slice(1).map((c) => (c.usage.cacheRead ?? 0) / c.usage.prompt);
      const firstThree = on.slice(0, 3).reduce((n, c) => n + billed(c.usage), 0);
      const uncachedThree = off.slice(0, 3).reduce((n, c) => n + c.usage.prompt, 0);
      const text = (c: Call) => JSON.stringify(c.request.messages.map(({ role, content }) => [role, content]));
      const sameLayout = on.length === off.length && on.every((c, i) => text(c) === text(off[i]!));
      console.log(
        `\nbilled-equivalent input, caching on / off: ${(ours / uncached).toFixed(3)}× over ${ROUNDS} calls (target ≤ ${TARGET_RATIO}×: ${ours / uncached <= TARGET_RATIO ? "met" : "NOT met"}); ${(firstThree / uncachedThree).toFixed(3)}× over the first 3 calls`,
      );
      console.log(
        `Aider's cached parts on the same requests: ${(aider / uncached).toFixed(3)}×   ·   later rounds read from cache: ${laterShares.map(pct).join(", ")} (target ≥ ${pct(TARGET_READ_SHARE)}: ${laterShares.every((s) => s >= TARGET_READ_SHARE) ? "met" : "NOT met"})`,
      );
      console.log(
        `floor of the ratio (every later round read whole): ${(((writes ? WRITE : 1) + READ * (ROUNDS - 1)) / ROUNDS).toFixed(3)}× over ${ROUNDS} calls, ${(((writes ? WRITE : 1) + READ * 2) / 3).toFixed(3)}× over 3 · caching off sent ${sameLayout ? "the same" : "DIFFERENT"} messages\n`,
      );
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
