import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { runCoder } from "../../src/coder/run-coder.js";
import type { CoderOptions } from "../../src/coder/types.js";
import { createCoderDeps } from "../../src/compose/create-coder-deps.js";
import { createLlmClient } from "../../src/llm/create-llm-client.js";
import type { CompletionResult, LlmClient } from "../../src/llm/types.js";
import { createGit } from "../../src/workspace/create-git.js";
import { startScriptedLlmServer, type ScriptedLlmServer } from "../../testkit/scripted-llm-server.js";
import { testExec } from "../helpers/test-exec.js";
import { createSecretRedactor } from "../../src/security/redact-secrets.js";

const exec = testExec({ sourceEnv: { PATH: process.env.PATH, HOME: os.tmpdir() } });
const git = createGit(exec, { name: "Test", email: "test@example.com" });
const block = (p: string, search: string, replace: string) =>
  `${p}\n\`\`\`\n<<<<<<< SEARCH\n${search}=======\n${replace}>>>>>>> REPLACE\n\`\`\`\n`;

/**
 * A three-round run (an edit, then two reflections on failing tests) over a real repository, through the real
 * OpenAI-compatible client and the scripted server, which reports cache hits by OpenAI's documented rule.
 */
describe("prompt caching across the rounds of a run", () => {
  let repo: string;
  let llm: ScriptedLlmServer;

  beforeEach(async () => {
    repo = await mkdtemp(path.join(os.tmpdir(), "prompt-cache-"));
    llm = await startScriptedLlmServer();
    await git.run(repo, ["init", "-q", "-b", "main"]);
    await mkdir(path.join(repo, "src"));
    await writeFile(path.join(repo, "src", "math.py"), "def add(a, b):\n    return a - b\n");
    const guide = Array.from({ length: 120 }, (_, i) => `- rule ${i}: keep functions small and named.`).join("\n");
    await writeFile(path.join(repo, "STYLE.md"), `# Style\n${guide}\n`);
    for (let i = 0; i < 30; i++)
      await writeFile(path.join(repo, "src", `mod${i}.py`), `def helper_${i}(x):\n    return x + ${i}\n`);
    await git.run(repo, ["add", "-A"]);
    await git.run(repo, ["commit", "-q", "-m", "init"]);
  });
  afterEach(async () => {
    await llm.close();
    await rm(repo, { recursive: true, force: true });
  });

  async function threeRounds(o: Partial<CoderOptions>): Promise<CompletionResult[]> {
    llm.push(
      `Fix the operator.\n\n${block("src/math.py", "    return a - b\n", "    return a + b\n")}`,
      `Mark it.\n\n${block("src/math.py", "    return a + b\n", "    return a + b  # round 2\n")}`,
      `Again.\n\n${block("src/math.py", "    return a + b  # round 2\n", "    return a + b  # round 3\n")}`,
    );
    const client = createLlmClient({
      baseUrl: llm.baseUrl,
      apiKey: "sk-test",
      redact: createSecretRedactor().redact,
      sleep: async () => undefined,
    });
    const answers: CompletionResult[] = [];
    const recording: LlmClient = {
      complete: async (req) => {
        const r = await client.complete(req);
        answers.push(r);
        return r;
      },
    };
    const result = await runCoder(
      {
        message: "fix add so it adds",
        files: ["src/math.py"],
        readFiles: ["STYLE.md"],
        editFormat: "diff",
        model: "gpt-4o",
        lintCommands: [],
        autoTest: true,
        testCommand: "grep -q 'round 3' src/math.py || { echo 'test_add failed'; exit 1; }",
        maxReflections: 3,
        mapTokens: 512,
        commit: false,
        protectedPaths: [],
        budget: {},
        commandTimeoutMs: 20_000,
        ...o,
      },
      createCoderDeps({ root: repo, exec, git, llm: recording, protectedPaths: [] }),
    );
    expect([result.outcome, "message" in result ? result.message : ""]).toEqual(["changed", ""]);
    expect(result.tokens.cacheRead).toBe(answers.reduce((n, a) => n + (a.usage.cacheRead ?? 0), 0));
    return answers;
  }

  it("reads at least 90 % of each later round's prompt from the cache, billed at the cached price", async () => {
    const answers = await threeRounds({ cacheKey: "run-42" });
    expect(answers).toHaveLength(3);
    expect(llm.requests.map((r) => r.body.prompt_cache_key)).toEqual(["run-42", "run-42", "run-42"]);
    expect(answers[0]!.usage.prompt).toBeGreaterThan(1024);
    expect(answers[0]!.usage.cacheRead).toBeUndefined();
    for (const later of answers.slice(1)) {
      expect(later.usage.cacheRead! / later.usage.prompt).toBeGreaterThanOrEqual(0.9);
      const { prompt, completion, cacheRead } = later.usage;
      expect(later.costUsd).toBeCloseTo(((prompt - cacheRead!) * 2.5 + cacheRead! * 1.25 + completion * 10) / 1e6, 10);
    }
  });

  it("sends no cache key when caching is off", async () => {
    await threeRounds({ promptCache: false });
    expect(llm.requests.every((r) => !("prompt_cache_key" in r.body))).toBe(true);
  });
});
