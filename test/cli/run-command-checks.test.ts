import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createGit } from "../../src/workspace/create-git.js";
import { runCli } from "../helpers/run-cli.js";
import { startScriptedLlmServer, type ScriptedLlmServer } from "../../testkit/scripted-llm-server.js";
import { testExec } from "../helpers/test-exec.js";

const sourceEnv = { PATH: process.env.PATH, HOME: os.tmpdir() };
const git = createGit(testExec({ sourceEnv }), { name: "Test", email: "test@example.com" });

const block = (p: string, search: string, replace: string) =>
  `${p}\n\`\`\`\n<<<<<<< SEARCH\n${search}=======\n${replace}>>>>>>> REPLACE\n\`\`\`\n`;

/**
 * `aider-bot run` finds the checkout's commands as the App finds the default branch's (the same resolution), and
 * `aider-bot checks` prints what it uses. A Makefile's `test` target checks the edit; its `lint` target always fails,
 * so a run that reaches it cannot end well unless `.github/aider.yml` switched lint off with `lint: []`.
 */
describe("aider-bot run: checks discovered in the checkout, as the App discovers them", () => {
  let repo: string;
  let llm: ScriptedLlmServer;
  beforeEach(async () => {
    repo = await mkdtemp(path.join(os.tmpdir(), "cli-checks-"));
    llm = await startScriptedLlmServer();
    await git.run(repo, ["init", "-q", "-b", "main"]);
    await writeFile(
      path.join(repo, "Makefile"),
      "test:\n\tsh ./test.sh\nlint:\n\t@echo 'lint: always fails'; exit 3\n",
    );
    await writeFile(path.join(repo, "lib.sh"), "mul() {\n  echo $(($1 + $2))\n}\n");
    await writeFile(
      path.join(repo, "test.sh"),
      '. ./lib.sh\ngot=$(mul 2 3)\n[ "$got" = 6 ] || { echo "FAIL: mul 2 3 gave $got, expected 6"; exit 1; }\necho ok\n',
    );
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
  const run = (...flags: string[]) =>
    runCli(
      ["run", "--repo", repo, "-m", "make mul multiply", "--file", "lib.sh", "--map-tokens", "0", "--json", ...flags],
      {
        env: env(),
      },
    );
  const plan = async () => JSON.parse((await runCli(["checks", repo, "--json"])).stdout) as Record<string, unknown>;
  const wrong = block("lib.sh", "  echo $(($1 + $2))\n", "  echo $(($1 - $2))\n");
  const right = block("lib.sh", "  echo $(($1 - $2))\n", "  echo $(($1 * $2))\n");

  it("runs the discovered test after each edit and reflects its failure; `lint: []` switches the discovered lint off", async () => {
    await mkdir(path.join(repo, ".github"));
    await writeFile(path.join(repo, ".github", "aider.yml"), "lint: []\n");
    await git.run(repo, ["add", "-A"]);
    await git.run(repo, ["commit", "-q", "-m", "no lint"]);
    llm.push(wrong, right, "fix: make mul multiply");
    const r = await run();
    expect(r.stderr).toContain("test: make test — Makefile target test");
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ outcome: "changed", reflections: 1 });
    // The test's failure was fed back to the model.
    const sent = llm.requests.map((q) => JSON.stringify(q.body.messages.at(-1))).join("\n");
    expect(sent).toContain("FAIL: mul 2 3 gave -1, expected 6");
    expect(await readFile(path.join(repo, "lib.sh"), "utf8")).toContain("$1 * $2");
    expect(out.checks).toEqual([
      { kind: "test", command: "make test", source: "Makefile target test", status: "passed" },
    ]);
    // `aider-bot checks` shows exactly that plan.
    expect(await plan()).toMatchObject({ setup: [], lint: [], test: [{ command: "make test" }] });
  });

  it("without a config, the discovered lint runs too; `aider-bot checks` lists both; --checks off runs neither", async () => {
    expect(await plan()).toMatchObject({ lint: [{ command: "make lint" }], test: [{ command: "make test" }] });
    llm.push(right.replace("$1 - $2", "$1 + $2"), "fix: make mul multiply");
    const failing = JSON.parse((await run("--max-reflections", "0")).stdout);
    expect(failing).toMatchObject({ outcome: "checks-failed", check: { kind: "lint", command: "make lint" } });
    expect(failing.checks.map((c: { command: string; status: string }) => `${c.command} ${c.status}`)).toEqual([
      "make lint failed",
      "make test not-run",
    ]);

    await git.run(repo, ["checkout", "-q", "--", "."]);
    llm.push(right.replace("$1 - $2", "$1 + $2"), "fix: make mul multiply");
    const off = JSON.parse((await run("--checks", "off")).stdout);
    expect(off).toMatchObject({ outcome: "changed", checks: [] });
  });
});
