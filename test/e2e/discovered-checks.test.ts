import { branchLog, fileOnBranch } from "../../testkit/seed-repo.js";
import { isCommitMessageRequest } from "../../testkit/scripted-llm-server.js";
import { sandboxWherePresent, startE2EApp, type E2E, type E2EApp } from "../helpers/e2e-harness.js";

const bot = "aider-bot[bot]";
const edit = (file: string, from: string, to: string, lang = "") =>
  `${file}\n\`\`\`${lang}\n<<<<<<< SEARCH\n${from}\n=======\n${to}\n>>>>>>> REPLACE\n\`\`\`\n`;

/**
 * Issue #30 end to end: repositories with NO `.github/aider.yml`. The bot finds their check commands on the default
 * branch (a workflow, package.json scripts, a Makefile), runs them in the bubblewrap sandbox with the host's tools
 * (unsandboxed on a machine without bubblewrap), feeds the failure back, and pushes only the fixed change; the status
 * comment names each command and its source.
 */
describe("e2e: checks discovered without a config", () => {
  let app: E2EApp;
  let e2e: E2E;
  beforeAll(async () => {
    app = await startE2EApp({ env: sandboxWherePresent() });
  });
  afterAll(async () => {
    await app?.close();
  });

  /** Run `/aider --file FILE fix it` on a new PR and return the final status comment and the coder requests. */
  async function run(file: string) {
    const pr = await e2e.pr({ title: "wip", head: "feature", user: "ann", files: { "notes.md": "n\n" } });
    await e2e.send("issue_comment", e2e.commentPayload(pr, `/aider --file ${file} make the tests pass`, "ann"));
    await e2e.idle();
    const status = e2e.repo.comments.filter((c) => c.user === bot).at(-1)!.body;
    const coder = e2e.llm.requests.filter((r) => !isCommitMessageRequest(r.body));
    return { status, coder };
  }

  it("a Python repository whose tests are named only in its workflow; the deploy step needing secrets never runs", async () => {
    const workflow = [
      "name: CI",
      "on: [push, pull_request]",
      "jobs:",
      "  test:",
      "    runs-on: ubuntu-latest",
      "    steps:",
      "      - uses: actions/checkout@v4",
      "      - uses: actions/setup-python@v5",
      "        with:",
      '          python-version: "3.12"',
      // Were this step run, the test module would exit at import and no edit could make the tests pass.
      "      - name: Publish preview",
      `        run: echo "raise SystemExit('the deploy step ran')" >> test_calc.py`,
      "        env:",
      "          TOKEN: ${{ secrets.DEPLOY_TOKEN }}",
      "      - name: Tests",
      "        run: python3 -m unittest -v",
      "  deploy:",
      "    runs-on: ubuntu-latest",
      "    needs: test",
      "    steps:",
      `      - run: echo "raise SystemExit('the deploy job ran')" >> test_calc.py`,
      "",
    ].join("\n");
    const files = {
      ".github/workflows/ci.yml": workflow,
      "calc.py": "def add(a, b):\n    return a - b\n",
      "test_calc.py":
        "import unittest\nfrom calc import add\n\n\nclass AddTest(unittest.TestCase):\n    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n",
    };
    const wrong = edit("calc.py", "    return a - b", "    return a * b", "python");
    const right = edit("calc.py", "    return a * b", "    return a + b", "python");
    e2e = await app.scenario({ files, permissions: { ann: "write" }, replies: [wrong, right] });
    const { status, coder } = await run("calc.py");
    // The failing test was fed back to the model, and the fix pushed.
    expect(coder[1]!.body.messages.at(-1)!.content).toContain("test_add");
    expect(coder[1]!.body.messages.at(-1)!.content).toMatch(/AssertionError: 6 != 5/);
    expect(await fileOnBranch(e2e.fake, e2e.repo, "feature", "calc.py")).toContain("a + b");
    expect(status).toContain("🚀 Pushed");
    expect(status).toContain("✅ `python3 -m unittest -v`");
    expect(status).toContain(".github/workflows/ci.yml job test, step 4");
    expect(status).not.toContain("No tests ran");
    // What was left out, and why.
    expect(status).toContain("needs secrets (`secrets.DEPLOY_TOKEN`)");
    expect(status).toMatch(/\.github\/workflows\/ci\.yml job deploy — deploys, publishes or releases/);
    // Had either run, the test module would have exited at import: the fed-back output and the green end say not.
    expect(coder[1]!.body.messages.at(-1)!.content).not.toMatch(/deploy (?:step|job) ran/);
  });

  it("a Node repository with only package.json scripts", async () => {
    const files = {
      "package.json": JSON.stringify({ name: "sum", private: true, scripts: { test: "node --test" } }, null, 2),
      "sum.js": "export function sum(xs) {\n  return xs.reduce((a, b) => a - b, 0);\n}\n",
      "sum.test.js":
        'import test from "node:test";\nimport assert from "node:assert/strict";\nimport { sum } from "./sum.js";\n\ntest("sum adds", () => {\n  assert.equal(sum([1, 2, 3]), 6);\n});\n',
    };
    const wrong = edit(
      "sum.js",
      "  return xs.reduce((a, b) => a - b, 0);",
      "  return xs.reduce((a, b) => a * b, 0);",
      "js",
    );
    const right = edit(
      "sum.js",
      "  return xs.reduce((a, b) => a * b, 0);",
      "  return xs.reduce((a, b) => a + b, 0);",
      "js",
    );
    e2e = await app.scenario({
      files: { ...files, "package.json": files["package.json"].replace('"private"', '"type": "module",\n  "private"') },
      permissions: { ann: "write" },
      replies: [wrong, right],
    });
    const { status, coder } = await run("sum.js");
    expect(coder[1]!.body.messages.at(-1)!.content).toContain("sum adds");
    expect(await fileOnBranch(e2e.fake, e2e.repo, "feature", "sum.js")).toContain("a + b");
    expect(status).toContain("🚀 Pushed");
    expect(status).toContain("✅ `npm test`");
    expect(status).toContain('package.json script "test"');
    // The plan's reads (root listing, package.json) were made at triage with the job's token and answered to the
    // job: each reached GitHub once, and the job says how many it took.
    const reads = (path: string) => e2e.fake.state.calls.filter((c) => c.method === "GET" && c.path === path).length;
    expect(reads(`/repos/${e2e.repo.owner}/${e2e.repo.name}/git/trees/main`)).toBe(1);
    expect(reads(`/repos/${e2e.repo.owner}/${e2e.repo.name}/contents/package.json?ref=main`)).toBe(1);
    expect(e2e.logs()).toMatch(/"answered":[1-9]\d*[,}].*"msg":"reads made at triage answered"/);
  });

  it("a Makefile repository", async () => {
    const files = {
      Makefile: "test:\n\tsh ./test.sh\n",
      "lib.sh": "mul() {\n  echo $(($1 + $2))\n}\n",
      "test.sh":
        '. ./lib.sh\ngot=$(mul 2 3)\n[ "$got" = 6 ] || { echo "FAIL: mul 2 3 gave $got, expected 6"; exit 1; }\necho "ok"\n',
    };
    const wrong = edit("lib.sh", "  echo $(($1 + $2))", "  echo $(($1 - $2))", "sh");
    const right = edit("lib.sh", "  echo $(($1 - $2))", "  echo $(($1 * $2))", "sh");
    e2e = await app.scenario({ files, permissions: { ann: "write" }, replies: [wrong, right] });
    const { status, coder } = await run("lib.sh");
    expect(coder[1]!.body.messages.at(-1)!.content).toContain("FAIL: mul 2 3 gave -1, expected 6");
    expect(await fileOnBranch(e2e.fake, e2e.repo, "feature", "lib.sh")).toContain("$1 * $2");
    expect(status).toContain("✅ `make test`");
    expect(status).toContain("Makefile target test");
    const [head] = await branchLog(e2e.fake, e2e.repo, "feature", 1);
    expect(head!.subject).not.toMatch(/checks failing/);
  });

  it("a repository with no checks says so: a pushed change never reads like a checked one", async () => {
    e2e = await app.scenario({
      files: { "calc.py": "def add(a, b):\n    return a - b\n" },
      permissions: { ann: "write" },
      replies: [edit("calc.py", "    return a - b", "    return a + b", "python")],
    });
    const { status } = await run("calc.py");
    expect(status).toContain("🚀 Pushed");
    expect(status).toContain("**No tests ran**: no test command was found");
  });

  it("/aider checks posts the plan read from the default branch", async () => {
    e2e = await app.scenario({ files: { Makefile: "test:\n\ttrue\nlint:\n\ttrue\n" }, permissions: { ann: "write" } });
    const pr = await e2e.pr({
      title: "wip",
      head: "feature",
      user: "ann",
      files: { "package.json": '{"scripts":{"test":"echo from the PR head"}}' },
    });
    await e2e.send("issue_comment", e2e.commentPayload(pr, "/aider checks", "ann"));
    await e2e.idle();
    const reply = e2e.repo.comments.filter((c) => c.user === bot).at(-1)!.body;
    expect(reply).toContain("**Checks I would run**");
    expect(reply).toContain("`make test` — Makefile target test");
    expect(reply).toContain("`make lint` — Makefile target lint");
    // The pull request's head never decides what runs.
    expect(reply).not.toContain("from the PR head");
    expect(e2e.fake.gitRequests).toHaveLength(0);
  });
});
