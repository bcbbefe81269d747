import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { jest } from "@jest/globals";
import { runCommand } from "../../src/cli/run-command.js";
import { createGit } from "../../src/workspace/create-git.js";
import { startScriptedLlmServer, type ScriptedLlmServer } from "../../testkit/scripted-llm-server.js";
import { testExec } from "../helpers/test-exec.js";

// The user's model key, shaped like no known secret: only the CLI's own redactor can know it.
const KEY = "local-endpoint-model-key-0042";

const sourceEnv = { PATH: process.env.PATH, HOME: os.tmpdir() };
const git = createGit(testExec({ sourceEnv }), { name: "Test", email: "test@example.com" });

/**
 * `aider-bot run` builds its redactor in the composition root from the user's model keys and hands it to every
 * writer: the model client, the commit message, and what the command prints. A repository's test that prints the key
 * (here, from a file the repository holds) reaches none of them.
 */
describe("aider-bot run: the model key a check prints reaches no model request and nothing printed", () => {
  let repo: string;
  let llm: ScriptedLlmServer;
  const out: string[] = [];
  beforeEach(async () => {
    repo = await mkdtemp(path.join(os.tmpdir(), "cli-redact-"));
    llm = await startScriptedLlmServer();
    await git.run(repo, ["init", "-q", "-b", "main"]);
    await writeFile(path.join(repo, "lib.sh"), "add() {\n  echo $(($1 - $2))\n}\n");
    await writeFile(path.join(repo, "loot.txt"), `${KEY}\n`);
    await writeFile(path.join(repo, "test.sh"), 'echo "FAIL: the key is $(cat loot.txt)"\nexit 1\n');
    await git.run(repo, ["add", "-A"]);
    await git.run(repo, ["commit", "-q", "-m", "init"]);
    jest.spyOn(process.stdout, "write").mockImplementation((chunk) => (out.push(String(chunk)), true));
    jest.spyOn(process.stderr, "write").mockImplementation((chunk) => (out.push(String(chunk)), true));
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    out.length = 0;
    await llm.close();
    await rm(repo, { recursive: true, force: true });
  });

  it("the check's output is redacted in the model's reflection and in the printed result", async () => {
    const block =
      "lib.sh\n```\n<<<<<<< SEARCH\n  echo $(($1 - $2))\n=======\n  echo $(($1 + $2))\n>>>>>>> REPLACE\n```\n";
    const again = block
      .replace("$(($1 - $2))", "$(($1 + $2))")
      .replace("=======\n  echo $(($1 + $2))", "=======\n  echo $(( $1 + $2 ))");
    llm.push(block, again);
    const code = await runCommand(
      {
        repo,
        message: "make add add",
        file: ["lib.sh"],
        read: [],
        lintCmd: [],
        testCmd: "sh ./test.sh",
        checks: "off",
        maxReflections: 1,
        mapTokens: 0,
        commit: false,
        json: true,
      },
      {
        ...sourceEnv,
        OPENAI_BASE_URL: llm.baseUrl,
        OPENAI_API_KEY: KEY,
        AIDER_BOT_MODEL: "gpt-4o",
        AIDER_BOT_CACHE_DIR: path.join(repo, ".cache-outside"),
        AIDER_BOT_PROGRESS: "1",
      },
    );
    expect(code).toBe(1);
    const printed = out.join("");
    const result = JSON.parse(printed.split("\n").find((l) => l.startsWith("{"))!) as {
      outcome: string;
      check: { output: string };
    };
    expect(result.outcome).toBe("checks-failed");
    // The check ran and its failure was seen: the key's place is marked, the key is gone.
    expect(result.check.output).toContain("FAIL: the key is [REDACTED]");
    expect(printed).not.toContain(KEY);
    const sent = JSON.stringify(llm.requests.map((q) => q.body.messages));
    expect(sent).toContain("FAIL: the key is [REDACTED]");
    expect(sent).not.toContain(KEY);
  });
});
