import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { runCoder } from "../../src/coder/run-coder.js";
import type { CoderOptions } from "../../src/coder/types.js";
import { testExec } from "../helpers/test-exec.js";
import { createLlmClient } from "../../src/llm/create-llm-client.js";
import { createCoderDeps } from "../../src/compose/create-coder-deps.js";
import { createGit } from "../../src/workspace/create-git.js";
import { startScriptedLlmServer, type ScriptedLlmServer } from "../../testkit/scripted-llm-server.js";
import { runCli } from "../helpers/run-cli.js";
import { createSecretRedactor } from "../../src/security/redact-secrets.js";

const sourceEnv = { PATH: process.env.PATH, HOME: os.tmpdir(), OPENAI_API_KEY: "sk-secret-model-key" };
const exec = testExec({ sourceEnv });
const git = createGit(exec, { name: "Test", email: "test@example.com" });

const block = (p: string, search: string, replace: string) =>
  `${p}\n\`\`\`\n<<<<<<< SEARCH\n${search}=======\n${replace}>>>>>>> REPLACE\n\`\`\`\n`;

describe("the coder loop over a real repo and a scripted model", () => {
  let repo: string;
  let llm: ScriptedLlmServer;

  beforeEach(async () => {
    repo = await mkdtemp(path.join(os.tmpdir(), "coder-it-"));
    llm = await startScriptedLlmServer();
    await git.run(repo, ["init", "-q", "-b", "main"]);
    await mkdir(path.join(repo, "src"));
    await writeFile(path.join(repo, "src", "math.py"), "def add(a, b):\n    return a - b\n");
    await writeFile(path.join(repo, "src", "util.py"), "def helper():\n    return 42\n");
    await writeFile(path.join(repo, "notes.txt"), "user notes\n");
    await git.run(repo, ["add", "-A"]);
    await git.run(repo, ["commit", "-q", "-m", "init"]);
    await writeFile(path.join(repo, "notes.txt"), "user's uncommitted notes\n");
  });
  afterEach(async () => {
    await llm.close();
    await rm(repo, { recursive: true, force: true });
  });

  const options = (o: Partial<CoderOptions> = {}): CoderOptions => ({
    message: "fix add so it adds",
    files: ["src/math.py"],
    readFiles: [],
    editFormat: "diff",
    model: "gpt-4o",
    lintCommands: [],
    autoTest: false,
    maxReflections: 3,
    mapTokens: 512,
    commit: true,
    trailers: ["Co-authored-by: ann <1+ann@users.noreply.github.com>"],
    protectedPaths: [".github/workflows/**"],
    budget: {},
    commandTimeoutMs: 20_000,
    ...o,
  });
  const run = (o: Partial<CoderOptions> = {}) => {
    const client = createLlmClient({
      baseUrl: llm.baseUrl,
      apiKey: "sk-secret-model-key",
      redact: createSecretRedactor().redact,
      sleep: async () => undefined,
    });
    return runCoder(
      options(o),
      createCoderDeps({ root: repo, exec, git, llm: client, protectedPaths: [".github/workflows/**"] }),
    );
  };
  const fix = block("src/math.py", "    return a - b\n", "    return a + b\n");

  it("succeeds cleanly: one commit with only the edited file, and the request held the files, fence and rules", async () => {
    llm.push(`I'll fix the operator.\n\n${fix}`);
    const r = await run();
    expect(r.outcome).toBe("changed");
    const log = await git.recentCommits(repo, 2);
    expect(log).toHaveLength(2);
    expect(log[0]!.message).toContain("Co-authored-by: ann");
    const show = await git.run(repo, ["show", "--name-only", "--format=", "HEAD"]);
    expect(show.stdout.trim()).toBe("src/math.py");
    expect((await git.run(repo, ["status", "--porcelain"])).stdout).toContain(" M notes.txt");
    const sent = llm.requests[0]!.body.messages.map((m) => m.content).join("\n");
    expect(sent).toContain("src/math.py\n```\ndef add(a, b):\n    return a - b\n```");
    expect(sent).toContain("<<<<<<< SEARCH");
    expect(sent).toContain("fix add so it adds");
  });

  it("reflects a failed SEARCH with the engine's text, then succeeds", async () => {
    llm.push(block("src/math.py", "    return a * b\n", "    return a + b\n"), fix);
    const r = await run();
    expect(r.outcome).toBe("changed");
    expect(r.reflections).toBe(1);
    const second = llm.requests[1]!.body.messages;
    expect(second[second.length - 1]!.content).toContain("did not match");
  });

  it("reflects a syntax error found by the built-in check", async () => {
    llm.push(
      block("src/math.py", "    return a - b\n", "    return (a + b\n"),
      block("src/math.py", "    return (a + b\n", "    return a + b\n"),
    );
    const r = await run();
    expect(r.outcome).toBe("changed");
    const last = llm.requests[1]!.body.messages.at(-1)!.content;
    expect(last).toMatch(/syntax check failed/);
    expect(await readFile(path.join(repo, "src/math.py"), "utf8")).toBe("def add(a, b):\n    return a + b\n");
  });

  it("reflects a failing lint command with its output", async () => {
    await writeFile(path.join(repo, "lint.sh"), "grep -n 'TODO' \"$@\" && exit 1 || exit 0\n");
    llm.push(
      block("src/math.py", "    return a - b\n", "    return a + b  # TODO\n"),
      block("src/math.py", "    return a + b  # TODO\n", "    return a + b\n"),
    );
    const r = await run({ lintCommands: ["sh lint.sh"] });
    expect(r.outcome).toBe("changed");
    expect(llm.requests[1]!.body.messages.at(-1)!.content).toContain("TODO");
  });

  it("reflects failing tests until green; the test process never sees the model key", async () => {
    const test =
      "env > env.out; python3 -c \"import sys; sys.path.insert(0, 'src'); from math import add\" 2>/dev/null; grep -q 'a + b' src/math.py";
    llm.push(
      block("src/math.py", "    return a - b\n", "    return b - a\n"),
      block("src/math.py", "    return b - a\n", "    return a + b\n"),
    );
    const r = await run({ autoTest: true, testCommand: test });
    expect(r.outcome).toBe("changed");
    expect(r.reflections).toBe(1);
    expect(llm.requests[1]!.body.messages.at(-1)!.content).toMatch(/test command .* failed/);
    const seen = await readFile(path.join(repo, "env.out"), "utf8");
    expect(seen).not.toContain("sk-secret-model-key");
    expect(seen).not.toContain("OPENAI_API_KEY");
  });

  it("stops after the reflections with checks-failed and the last output, committing nothing", async () => {
    llm.push(fix, "Still fine.\n" + block("src/math.py", "    return a + b\n", "    return a + b\n\n"), "x", "y");
    const r = await run({ autoTest: true, testCommand: "echo 'tests are red'; exit 1", maxReflections: 2 });
    expect(r.outcome).toBe("checks-failed");
    if (r.outcome === "checks-failed") expect(r.report.output).toContain("tests are red");
    expect(await git.recentCommits(repo, 5)).toHaveLength(1);
  });

  it("adds a file the model asks for and asks again", async () => {
    llm.push("To do this I need to see src/util.py.", block("src/util.py", "    return 42\n", "    return 43\n"));
    const r = await run({ message: "make helper return 43" });
    expect(r.outcome).toBe("changed");
    const second = llm.requests[1]!.body.messages.map((m) => m.content).join("\n");
    expect(second).toContain("def helper():");
  });

  it("retries a 429 and reports a 401 clearly", async () => {
    llm.push({ status: 429, headers: { "retry-after": "0" } }, fix);
    expect((await run()).outcome).toBe("changed");
    llm.push({ status: 401 });
    const r = await run();
    expect(r).toMatchObject({ outcome: "llm-error", errorKind: "auth" });
    if (r.outcome === "llm-error") expect(r.message).toMatch(/OPENAI_API_KEY/);
  });

  it("runs from the CLI with --json", async () => {
    llm.push(fix, "fix: make add add");
    const r = await runCli(
      ["run", "--repo", repo, "-m", "fix add", "--file", "src/math.py", "--json", "--map-tokens", "0"],
      {
        env: {
          OPENAI_BASE_URL: llm.baseUrl,
          OPENAI_API_KEY: "sk-x",
          AIDER_BOT_CACHE_DIR: path.join(repo, ".cache-outside"),
          AIDER_BOT_MODEL: "gpt-4o",
        },
      },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/thinking: gpt-4o: \d+ prompt \+ \d+ completion tokens so far/);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      outcome: "changed",
      reflections: 0,
      editedFiles: [{ path: "src/math.py", added: 1, removed: 1 }],
    });
    expect(out.commit).toMatchObject({ sha: expect.stringMatching(/^[0-9a-f]{40}$/), subject: "fix: make add add" });
    expect(out.tokens.prompt).toBeGreaterThan(0);
  });
  it("aider-bot run moves to AIDER_BOT_FALLBACK_MODELS when the model rate-limits past its retry-after bound", async () => {
    llm.forModel("gpt-4o", { standing: { status: 429, headers: { "retry-after": "3600" } } });
    try {
      llm.push(fix, "fix: make add add");
      const r = await runCli(
        ["run", "--repo", repo, "-m", "fix add", "--file", "src/math.py", "--json", "--map-tokens", "0"],
        {
          env: {
            OPENAI_BASE_URL: llm.baseUrl,
            OPENAI_API_KEY: "sk-x",
            AIDER_BOT_CACHE_DIR: path.join(repo, ".cache-outside"),
            AIDER_BOT_MODEL: "gpt-4o",
            AIDER_BOT_FALLBACK_MODELS: "gpt-4o-mini",
          },
        },
      );
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/thinking: gpt-4o-mini: \d+ prompt/);
      expect(JSON.parse(r.stdout)).toMatchObject({ outcome: "changed", models: ["gpt-4o-mini"] });
      // One 429 per call to gpt-4o, never waited for: each went on to the fallback at once.
      expect(llm.requests.map((q) => q.body.model)).toEqual(["gpt-4o", "gpt-4o-mini", "gpt-4o", "gpt-4o-mini"]);
    } finally {
      llm.forModel("gpt-4o", null);
    }
  });

  it("aider-bot run keeps the map's cache in a folder of its own per checkout under AIDER_BOT_CACHE_DIR", async () => {
    // The answer, then the commit message the weak model is asked for (an empty script would answer 500s, retried).
    llm.push(`Fixed.\n\n${fix}`, "fix: add");
    const cacheDir = await mkdtemp(path.join(os.tmpdir(), "run-cache-"));
    try {
      const r = await runCli(["run", "--repo", repo, "-m", "fix add", "--file", "src/math.py", "--json"], {
        env: {
          OPENAI_BASE_URL: llm.baseUrl,
          OPENAI_API_KEY: "sk-x",
          AIDER_BOT_CACHE_DIR: cacheDir,
          AIDER_BOT_MODEL: "gpt-4o",
        },
      });
      expect(r.code).toBe(0);
      // The map was built (and shown to the model): its tags sit in <cache>/repomap/<checkout key>/tags.bin.
      expect(JSON.stringify(llm.requests[0])).toContain("src/util.py");
      const [key] = await readdir(path.join(cacheDir, "repomap"));
      expect(key).toMatch(/^[0-9a-f]{16}$/);
      expect(await readdir(path.join(cacheDir, "repomap", key!))).toEqual(["tags.bin"]);
    } finally {
      await rm(cacheDir, { recursive: true, force: true });
    }
  });
});
