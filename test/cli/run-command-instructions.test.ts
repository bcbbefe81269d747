import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createGit } from "../../src/workspace/create-git.js";
import { runCli } from "../helpers/run-cli.js";
import { startScriptedLlmServer, type ScriptedLlmServer } from "../../testkit/scripted-llm-server.js";
import { testExec } from "../helpers/test-exec.js";

const sourceEnv = { PATH: process.env.PATH, HOME: os.tmpdir() };
const git = createGit(testExec({ sourceEnv }), { name: "Test", email: "test@example.com" });

describe("aider-bot run: the checkout's instruction files and --read", () => {
  let repo: string;
  let llm: ScriptedLlmServer;
  beforeEach(async () => {
    repo = await mkdtemp(path.join(os.tmpdir(), "cli-instr-"));
    llm = await startScriptedLlmServer();
    await git.run(repo, ["init", "-q", "-b", "main"]);
    await mkdir(path.join(repo, "lib", "deep"), { recursive: true });
    await writeFile(path.join(repo, "AGENTS.md"), "LOCAL-ROOT-RULE\n");
    await writeFile(path.join(repo, "lib", "AGENTS.md"), "LOCAL-LIB-RULE\n");
    await writeFile(path.join(repo, "lib", "deep", "x.py"), "X = 1\n");
    await writeFile(path.join(repo, "REF.md"), "LOCAL-REFERENCE\n");
    await git.run(repo, ["add", "-A"]);
    await git.run(repo, ["commit", "-q", "-m", "init"]);
  });
  afterEach(async () => {
    await llm.close();
    await rm(repo, { recursive: true, force: true });
  });
  const env = () => ({
    OPENAI_BASE_URL: llm.baseUrl,
    OPENAI_API_KEY: "sk-x",
    AIDER_BOT_CACHE_DIR: path.join(repo, ".cache-outside"),
    AIDER_BOT_MODEL: "gpt-4o",
  });
  const sent = () => llm.requests.map((r) => r.body.messages.map((m) => m.content).join("\n")).join("\n");

  it("shows the root AGENTS.md, the nearest one of the edited file, and the --read file", async () => {
    llm.push("Nothing to change.");
    const r = await runCli(
      [
        "run",
        "--repo",
        repo,
        "-m",
        "explain X",
        "--file",
        "lib/deep/x.py",
        "--read",
        "REF.md",
        "--map-tokens",
        "0",
        "--json",
      ],
      { env: env() },
    );
    expect(r.stderr).toContain("instructions: AGENTS.md, lib/AGENTS.md");
    expect(sent()).toContain("LOCAL-ROOT-RULE");
    expect(sent()).toContain("LOCAL-LIB-RULE");
    expect(sent()).toContain("LOCAL-REFERENCE");
  });

  it("--no-instructions leaves them out", async () => {
    llm.push("Nothing to change.");
    await runCli(
      [
        "run",
        "--repo",
        repo,
        "-m",
        "explain X",
        "--file",
        "lib/deep/x.py",
        "--no-instructions",
        "--map-tokens",
        "0",
        "--json",
      ],
      { env: env() },
    );
    expect(sent()).not.toContain("LOCAL-ROOT-RULE");
  });

  it("a --read file that does not exist is a usage error, before any model call", async () => {
    const r = await runCli(["run", "--repo", repo, "-m", "explain X", "--read", "NOPE.md", "--json"], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--read NOPE.md: no such file in the checkout");
    expect(llm.requests).toHaveLength(0);
  });
});
